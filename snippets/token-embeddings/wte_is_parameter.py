"""The embedding matrix is one of the model's registered, trainable parameters."""

from pinned_gpt2 import model

# --8<-- [start:registered]
wte_weight = model.transformer.wte.weight

registered = any(parameter is wte_weight for parameter in model.parameters())

print(registered)
print(wte_weight.requires_grad)
# --8<-- [end:registered]
