"""The record step, engine-free; its modules in the order the data takes them:

1. project.py: the parts, from the configuration file (plain YAML) and their folders;
2. snippets.py: find each part's snippets, and what each loads and depends on;
3. hub.py: reach GPT-2 at the pinned revision, and check what was loaded;
4. runner.py: run the snippets and capture what each prints;
5. published.py: attach the article's outputs for snippets that need GPT-2's weights;
6. store.py: write the outputs and their manifest as one transaction;
7. notebook.py: write each part's notebook from what was stored;
8. step.py: the step itself (`make record`), which runs them in this order on what is stale.
"""
