"""Links back to the repository: built with GITHUB_SERVER_URL, GITHUB_REPOSITORY and GITHUB_SHA,
pages link to their files at that commit, edits go to main and the notebook opens in Colab;
built without them, every link stays inside the site."""

from __future__ import annotations

import pytest

from recorder.repository import VARIABLES, Repository, RepositoryError, from_environment, missing

SERVER, NAME, COMMIT = "https://github.com", "example/gpt2-explained", "0123456789abcdef" * 2 + "01234567"
LINKED = dict(zip(VARIABLES, (SERVER, NAME, COMMIT), strict=True))
REPOSITORY = f"{SERVER}/{NAME}"
NOTEBOOK = "notebooks/token-embeddings.ipynb"


def test_all_three_variables_name_the_repository_at_that_commit() -> None:
    repository = from_environment({**LINKED, "HOME": "/root"})
    assert repository == Repository(SERVER, NAME, COMMIT)
    assert repository.url == REPOSITORY
    assert repository.at_commit("snippets/row_lookup.py") == f"{REPOSITORY}/blob/{COMMIT}/snippets/row_lookup.py"
    assert repository.colab(f"docs/{NOTEBOOK}") == (
        f"https://colab.research.google.com/github/{NAME}/blob/{COMMIT}/docs/{NOTEBOOK}")


def test_colab_is_offered_only_for_github_com() -> None:
    repository = from_environment({**LINKED, "GITHUB_SERVER_URL": "https://git.example.org"})
    assert repository is not None and repository.url == f"https://git.example.org/{NAME}"
    assert repository.colab(f"docs/{NOTEBOOK}") is None


@pytest.mark.parametrize("given", [(), ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY"), ("GITHUB_REPOSITORY",),
                                   ("GITHUB_SHA",)])
def test_some_of_the_variables_count_as_none(given: tuple[str, ...]) -> None:
    environ = {name: LINKED[name] for name in given}
    assert from_environment(environ) is None
    expected_missing = [name for name in VARIABLES if name not in given] if given else []
    assert missing(environ) == expected_missing
    assert from_environment({**environ, "GITHUB_SHA": ""}) is None, "an empty variable is an unset one"


@pytest.mark.parametrize(("variable", "value"), [
    ("GITHUB_SERVER_URL", "github.com"),
    ("GITHUB_SERVER_URL", "https://github.com/"),
    ("GITHUB_REPOSITORY", "gpt2-explained"),
    ("GITHUB_REPOSITORY", 'example/"><script>'),
    ("GITHUB_SHA", "main"),
    ("GITHUB_SHA", COMMIT[:7]),
])
def test_a_malformed_variable_is_an_error_naming_it_and_the_fix(variable: str, value: str) -> None:
    with pytest.raises(RepositoryError) as error:
        from_environment({**LINKED, variable: value})
    assert f"{variable}={value!r}" in str(error.value)
    assert "unset GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_SHA" in str(error.value)
