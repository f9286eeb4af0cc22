"""The toy table's shape, and each word's token id: the number of its row."""

from toy_table import embedding_matrix, words

# --8<-- [start:ids]
print(embedding_matrix.shape)
print(dict(enumerate(words)))
# --8<-- [end:ids]
