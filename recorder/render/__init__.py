"""The build: what each page's directives become, from what the record step stored. It only reads."""
