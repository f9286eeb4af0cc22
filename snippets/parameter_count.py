"""How many learned numbers the embedding table holds: one row per token, 768 per row."""

# --8<-- [start:count]
vocabulary_size = 50_257
embedding_width = 768

print(f"{vocabulary_size:,} × {embedding_width:,} = {vocabulary_size * embedding_width:,}")
# --8<-- [end:count]
