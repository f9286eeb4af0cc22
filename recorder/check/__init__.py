"""Whether the site can be built, worked out once from content, for every command and both engines."""
