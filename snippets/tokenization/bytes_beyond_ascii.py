"""Characters beyond ASCII take several bytes, and their tokens are built from those bytes."""

from pinned_tokenizer import tokenizer

# --8<-- [start:bytes]
for text in ["café", "🚀"]:
    token_ids = tokenizer.encode(text)
    utf8 = text.encode("utf-8")
    print(text)
    print(f"  characters   {list(text)} ({len(text)})")
    print(f"  UTF-8 bytes  {utf8.hex(' ')} ({len(utf8)})")
    print(f"  tokens       {tokenizer.convert_ids_to_tokens(token_ids)} ({len(token_ids)})")
    print(f"  ids          {token_ids}")
    print(f"  each alone   {[tokenizer.decode([token_id]) for token_id in token_ids]}")
    print(f"  decode(encode(text)) == text: {tokenizer.decode(token_ids) == text}")
# --8<-- [end:bytes]
