"""What MkDocs and Zensical run: the YAML tags of mkdocs.yml, the Markdown extension, the MkDocs plugin."""
