"""What the project's files say, each read and checked in one place: the layer every other one reads."""
