"""How many learned numbers the embedding table holds: one row per token, 768 per row."""

# --8<-- [start:count]
vocabulary_size = 50_257
embedding_width = 768

parameters = vocabulary_size * embedding_width

print(f"{vocabulary_size:,} × {embedding_width:,} = {parameters:,}")
# --8<-- [end:count]
