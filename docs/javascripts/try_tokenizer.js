/* "Try it": GPT-2's byte-level BPE run in the reader's browser, on GPT-2's own vocab.json and merges.txt.

   The page holds a hidden placeholder, <p class="try-tokenizer">, with the prompt to start from; this script
   replaces it with the box, so a page read without JavaScript is unchanged. The tokenizer files, published
   with the site and checked by the browser against their pinned sha256 (the `integrity` of each fetch),
   load only once the reader starts to use the box: the page's first load stays as light as it was. */
"use strict";

// GPT-2's pre-tokenizer (OpenAI's encoder.py): contractions, then letters, digits and other symbols, each
// with at most one space in front; a run of spaces leaves its last one to the word after it.
const WORDS = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;
const SPECIAL = "<|endoftext|>"; // split off before anything else, as the tokenizer's one special token
const UTF8 = new TextEncoder();

// Byte value -> the character vocab.json writes it with: printable bytes keep their own character, the
// others take the characters from U+0100 on, in byte order.
const BYTE_CHARACTERS = (() => {
  const characters = new Array(256);
  for (const [first, last] of [[0x21, 0x7e], [0xa1, 0xac], [0xae, 0xff]]) {
    for (let byte = first; byte <= last; byte++) characters[byte] = String.fromCharCode(byte);
  }
  let next = 0x100;
  for (let byte = 0; byte < 256; byte++) characters[byte] ??= String.fromCharCode(next++);
  return characters;
})();
const BYTE_VALUES = new Map(BYTE_CHARACTERS.map((character, byte) => [character, byte]));

class BytePairEncoder {
  constructor(vocab, mergesText) {
    this.vocab = vocab;
    this.ranks = new Map(); // "first second" -> rank; line 0 of merges.txt is its version header
    const lines = mergesText.split("\n");
    for (let line = 1; line < lines.length; line++) if (lines[line]) this.ranks.set(lines[line], line - 1);
    this.words = new Map(); // a word's byte characters -> its merges, worked out once
  }

  /* Tokens of `text`: {token, id, word, start, end}, where start and end place the token in its word. */
  encode(text) {
    const tokens = [];
    text.split(SPECIAL).forEach((part, index) => {
      if (index > 0) tokens.push({token: SPECIAL, id: this.vocab[SPECIAL], word: null, start: 0, end: 0});
      for (const [match] of part.matchAll(WORDS)) {
        const word = this.merge(Array.from(UTF8.encode(match), byte => BYTE_CHARACTERS[byte]).join(""));
        let start = 0;
        for (const piece of word.pieces) {
          tokens.push({token: piece, id: this.vocab[piece], word, start, end: start += piece.length});
        }
      }
    });
    return tokens;
  }

  /* Join the lowest-ranked adjacent pair until no pair has a merge, keeping each step and where the pieces
     it made lie in the word (one character per byte). */
  merge(characters) {
    const known = this.words.get(characters);
    if (known) return known;
    let pieces = Array.from(characters);
    const steps = [];
    for (;;) {
      let best = Infinity;
      for (let i = 0; i + 1 < pieces.length; i++) best = Math.min(best, this.ranks.get(`${pieces[i]} ${pieces[i + 1]}`) ?? Infinity);
      if (best === Infinity) break;
      const [first, second] = this.mergeOf(best, pieces);
      const joined = [], starts = [], made = [];
      let start = 0;
      for (const piece of pieces) {
        const last = joined.length - 1;
        if (last >= 0 && joined[last] === first && piece === second) {
          joined[last] = first + second;
          made.push(starts[last]);
        } else {
          joined.push(piece);
          starts.push(start);
        }
        start += piece.length;
      }
      pieces = joined;
      steps.push({rank: best, first, second, starts: made});
    }
    const word = {characters, pieces, steps};
    this.words.set(characters, word);
    return word;
  }

  mergeOf(rank, pieces) {
    for (let i = 0; i + 1 < pieces.length; i++) {
      if (this.ranks.get(`${pieces[i]} ${pieces[i + 1]}`) === rank) return [pieces[i], pieces[i + 1]];
    }
    throw new Error(`no pair of rank ${rank}`);
  }
}

/* The merges that built the token: the steps of its word that made a piece inside it. */
function mergesOf({word, start, end}) {
  return word.steps.filter(step => step.starts.some(at => at >= start && at + step.first.length + step.second.length <= end));
}

const count = (number, noun) => `${number.toLocaleString("en-US")} ${noun}${number === 1 ? "" : "s"}`;
const hex = token => Array.from(token, character => BYTE_VALUES.get(character).toString(16).padStart(2, "0")).join(" ");

function element(tag, attributes = {}, ...children) {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  made.append(...children);
  return made;
}

class TryTokenizer {
  /* Replace the page's hidden placeholder, which holds the prompt to start with, by the box. */
  constructor(placeholder, files) {
    this.files = files;
    this.encoder = null;
    this.loading = null;
    this.selected = 0;
    this.text = element("textarea", {id: "try-tokenizer-text", rows: "3", spellcheck: "false", autocomplete: "off"});
    this.text.value = placeholder.textContent.trim();
    this.counts = element("p", {class: "try-tokenizer__counts"});
    this.announced = element("p", {class: "try-tokenizer__announced", role: "status"});
    this.tokens = element("div", {class: "try-tokenizer__tokens", role: "group", "aria-label": "Tokens"});
    this.ids = element("code", {});
    this.idsShown = element("div", {hidden: ""}, element("p", {class: "try-tokenizer__label"}, "Token ids, as Python prints them:"),
                            element("pre", {class: "try-tokenizer__ids"}, this.ids)); // once there are ids
    this.merges = element("div", {class: "try-tokenizer__merges", "aria-live": "polite"});
    this.start = element("button", {type: "button", class: "md-button try-tokenizer__start"}, "Show the tokens");
    const box = element("section", {class: "try-tokenizer__box", "aria-labelledby": "try-tokenizer-title"},
      element("p", {class: "try-tokenizer__title", id: "try-tokenizer-title"}, "Try it: your own text"),
      element("label", {for: "try-tokenizer-text"},
              "Type or paste any text; GPT-2's tokenizer, run in this page on its pinned vocab.json and merges.txt, shows its tokens."),
      this.text, this.start, this.counts, this.announced, this.tokens,
      this.idsShown, this.merges,
    );
    placeholder.replaceWith(box);
    this.counts.textContent = "Select the box, or press the button, to load the tokenizer's files.";
    const update = () => this.load().then(ready => ready && this.render());
    this.text.addEventListener("focus", update, {once: true});
    this.text.addEventListener("input", update);
    this.start.addEventListener("click", () => this.text.focus()); // which loads the files
    this.tokens.addEventListener("keydown", event => this.move(event));
    this.tokens.addEventListener("click", event => {
      const picked = event.target.closest("button");
      if (picked) this.pick(Number(picked.dataset.index));
    });
  }

  /* Fetch and read the two files, once: whether the tokenizer is ready. */
  load() {
    this.loading ??= (async () => {
      this.counts.textContent = "Loading vocab.json and merges.txt…";
      try {
        const [vocab, merges] = await Promise.all(this.files.map(async ({url, integrity}) => {
          const response = await fetch(url, {integrity});
          if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
          return response.text();
        }));
        this.encoder = new BytePairEncoder(JSON.parse(vocab), merges);
      } catch (error) {
        this.counts.textContent = `The tokenizer's files could not be loaded (${error.message}). Reload the page to try again.`;
        return false;
      }
      this.start.remove();
      return true;
    })();
    return this.loading;
  }

  render() {
    const text = this.text.value;
    this.current = this.encoder.encode(text);
    this.selected = Math.min(this.selected, Math.max(this.current.length - 1, 0));
    const bytes = UTF8.encode(text).length;
    const summary = `${count(this.current.length, "token")} from ${count(bytes, "UTF-8 byte")}`;
    this.counts.textContent = summary;
    clearTimeout(this.pause); // a screen reader hears the count once typing pauses, not at every key
    this.pause = setTimeout(() => { this.announced.textContent = summary; }, 500);
    this.tokens.replaceChildren(...this.current.map((token, index) => element("button", {
      type: "button", class: `try-tokenizer__token try-tokenizer__token--${index % 6}`,
      "data-index": index, tabindex: index === this.selected ? "0" : "-1", "aria-pressed": "false",
    }, element("span", {}, token.token), element("span", {class: "try-tokenizer__id"}, ` id ${token.id}`))));
    this.ids.textContent = `[${this.current.map(token => token.id).join(", ")}]`;
    this.idsShown.hidden = false;
    this.merges.replaceChildren();
  }

  /* Arrow keys, Home and End move between the tokens: one tab stop for them all. */
  move(event) {
    const last = this.current.length - 1;
    const to = {ArrowRight: this.selected + 1, ArrowDown: this.selected + 1, ArrowLeft: this.selected - 1,
                ArrowUp: this.selected - 1, Home: 0, End: last}[event.key];
    if (to === undefined || !event.target.closest("button")) return;
    event.preventDefault();
    this.focus(Math.max(0, Math.min(last, to)));
  }

  focus(index) {
    this.tokens.children[this.selected]?.setAttribute("tabindex", "-1");
    this.selected = index;
    this.tokens.children[index].setAttribute("tabindex", "0");
    this.tokens.children[index].focus();
  }

  /* Show how the picked token was made, as the page's figure does for " ChatGPT". */
  pick(index) {
    this.focus(index);
    for (const button of this.tokens.children) button.setAttribute("aria-pressed", String(button === this.tokens.children[index]));
    const token = this.current[index];
    const name = element("code", {}, token.token);
    if (token.word === null) {
      this.merges.replaceChildren(element("p", {}, name, ` is the special token, id ${token.id}: the text ${SPECIAL} always becomes it, and no merge makes it.`));
      return;
    }
    const steps = mergesOf(token);
    const bytes = token.end - token.start;
    const intro = element("p", {}, name, `, id ${token.id}, holds ${count(bytes, "byte")} (${hex(token.token)}). `,
                          steps.length ? `${count(steps.length, "merge")} built it, lowest rank first:`
                                       : "It is a byte token, which no merge builds.");
    const list = element("ol", {}, ...steps.map(step => element("li", {},
      element("code", {}, `rank ${step.rank.toLocaleString("en-US")}: ${step.first} + ${step.second}`), " → ",
      element("code", {}, step.first + step.second))));
    this.merges.replaceChildren(intro, ...(steps.length ? [list] : []));
  }
}

// overrides/main.html loads this script once the reader nears the placeholder, with the addresses it needs.
const script = document.currentScript.dataset;
document.head.append(element("link", {rel: "stylesheet", href: script.stylesheet}));
new TryTokenizer(document.querySelector(".try-tokenizer"), [{url: script.vocab, integrity: script.vocabIntegrity},
                                                            {url: script.merges, integrity: script.mergesIntegrity}]);
