"""The first eight learned values in the row for token id 25423, "Software"."""

from pinned_gpt2 import model

# --8<-- [start:row]
row = model.transformer.wte.weight[25423, :8].tolist()
values = [f"{value:.6f}" for value in row]

print("[" + ", ".join(values[:4]) + ",")
print(" " + ", ".join(values[4:]) + "]")
# --8<-- [end:row]
