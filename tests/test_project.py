"""The project as mkdocs.yml and its folders describe it: the plugin's options, checked once, and the parts."""

from __future__ import annotations

from pathlib import Path

import pytest

from recorder.project.config import PLUGIN, Project, ProjectError
from support import ROOT, build, edit

# The plugin's entry in mkdocs.yml, up to its last option: a test adds one after it.
LAST_OPTION = 'transformers: "5.17.0"'
# The output of which the article states something, and its statement as mkdocs.yml writes it.
STATED_OUTPUT, STATED = next(iter(Project.load(ROOT).options.published_with.items()))
STATEMENT = f"{STATED_OUTPUT}:" + "".join(f'\n          {what}: "{version}"' for what, version in STATED.items())


def test_every_folder_of_snippets_is_a_part_with_its_page_and_notebook_in_the_navigation_s_order() -> None:
    project = Project.load(ROOT)
    parts = project.parts()
    folders = sorted(
        path.name for path in (ROOT / "snippets").iterdir() if path.is_dir() and path.name != "__pycache__"
    )
    assert sorted(part.name for part in parts) == folders and folders
    listed = [
        (title, page) for entry in project.nav for title, page in (entry.items() if isinstance(entry, dict) else [])
    ]
    assert [(part.title, part.page) for part in parts] == [
        (title, page) for title, page in listed if page in {part.page for part in parts}
    ]
    for part in parts:
        assert part.page == f"{part.name}.md" and (ROOT / "docs" / part.page).is_file()
        assert part.notebook == f"notebooks/{part.name}.ipynb"


def test_a_new_folder_with_its_page_is_a_part_and_an_edit_of_mkdocs_yml_is_seen(project: Path) -> None:
    before = Project.load(project)
    (project / "snippets" / "added-part").mkdir()
    (project / "snippets" / "added-part" / "hello.py").write_text('print("hello")\n', encoding="utf-8")
    (project / "docs" / "added-part.md").write_text("# Added\n", encoding="utf-8")
    with pytest.raises(
        ProjectError, match=r'docs/added-part\.md is not in `nav:`.*Add `- "Part N: Title": added-part\.md`'
    ):
        Project.load(project).parts()
    edit(project / "mkdocs.yml", "  - Provenance:", '  - "Part 9: Added": added-part.md\n  - Provenance:')
    assert ("added-part", "Part 9: Added") in [(part.name, part.title) for part in Project.load(project).parts()]
    assert before.options.llms_section == "Series"
    edit(project / "mkdocs.yml", LAST_OPTION, f"{LAST_OPTION}\n      llms_section: Parts")
    assert Project.load(project).options.llms_section == "Parts", "mkdocs.yml is read again once edited"


def test_a_snippet_folder_with_no_page_names_the_fix_to_the_record_step_and_the_build(project: Path) -> None:
    (project / "snippets" / "added-part").mkdir()
    (project / "snippets" / "added-part" / "hello.py").write_text('print("hello")\n', encoding="utf-8")
    with pytest.raises(ProjectError) as error:
        Project.load(project).parts()
    for part in ("snippets/added-part/ has no page", "Write docs/added-part.md"):
        assert part in str(error.value)
    result = build(project)
    assert result.returncode != 0
    assert "snippets/added-part/ has no page" in result.stderr and "Write docs/added-part.md" in result.stderr


WRONG_OPTIONS = {
    # YAML reads 5.17 as a number: the article's version is text, as written.
    "an unquoted version": (
        'transformers: "5.17.0"',
        "transformers: 5.17",
        "published_with",
        'quote it as the article states it, e.g. transformers: "5.17.0"',
    ),
    # MkDocs' `!ENV` types what it reads as YAML does, a variable's value or its default.
    "a version read with !ENV": (
        'transformers: "5.17.0"',
        "transformers: !ENV [GPT2_EXPLAINED_NEVER_SET, 5.10]",
        "published_with",
        "the version of `transformers` is 5.1, a float, not text: quote it as the article states it, e.g. "
        'transformers: "5.17.0" (a value `!ENV` reads from a variable is typed as MkDocs types it: write the version '
        "itself)",
    ),
    "no version at all": (STATEMENT, f"{STATED_OUTPUT}: {{}}", "published_with", "name each package with its version"),
    "an unknown option": (
        LAST_OPTION,
        f"{LAST_OPTION}\n      recorded_values: {{}}",
        "recorded_values",
        "unknown option. Known: published_article, published_with, published_in_prose, llms_section",
    ),
    "a wrong type": (LAST_OPTION, f"{LAST_OPTION}\n      llms_section: [Series]", "llms_section", "expected text"),
}


@pytest.mark.parametrize("case", WRONG_OPTIONS)
def test_a_wrong_plugin_option_is_refused_by_mkdocs_and_by_the_record_step(project: Path, case: str) -> None:
    old, new, option, reason = WRONG_OPTIONS[case]
    edit(project / "mkdocs.yml", old, new)
    with pytest.raises(ProjectError) as error:
        Project.load(project)
    assert str(error.value).startswith(f"mkdocs.yml: plugin `{PLUGIN}`, option `{option}`: ")
    assert reason in str(error.value)
    result = build(project)  # the configuration's state names the same problem, before MkDocs' own validation
    assert result.returncode != 0
    assert str(error.value) in result.stderr
    assert not (project / "site" / "index.html").exists()


def test_mkdocs_yml_without_the_plugin_names_the_fix(project: Path) -> None:
    edit(project / "mkdocs.yml", f"  - {PLUGIN}:", "  - unlisted:")
    with pytest.raises(ProjectError, match=rf"does not list the `{PLUGIN}` plugin under `plugins:`.*Add `- {PLUGIN}:`"):
        Project.load(project)


@pytest.mark.parametrize("front_matter", ["", "---\ndescription: '  '\ntitle: Parts\n---\n\n"])
def test_a_part_whose_page_has_no_description_is_refused_with_the_fix(project: Path, front_matter: str) -> None:
    """The Series page would list it as "Part N: Title: ." and llms.txt with nothing to say."""
    from recorder.check import state

    part = Project.load(project).parts()[-1]
    page = project / "docs" / part.page
    markdown = Project.load(project).page(part.page)[0]
    page.write_text(front_matter + markdown, encoding="utf-8")
    assert state.current(Project.load(project)).problems == (
        f"docs/{part.page} has no `description` in its front matter, which the Series page, llms.txt and search "
        f"engines show for {part.title}. Add one at the top of the page: a line `---`, then "
        "`description: ONE SENTENCE ON WHAT THE PART SHOWS`, then `---`.",
    )
