"""One backward pass fills a gradient for the whole embedding matrix."""

from pinned_gpt2 import model
from prompt import input_ids

wte_weight = model.transformer.wte.weight

# --8<-- [start:step]
model.train()
model.zero_grad(set_to_none=True)

loss = model(
    input_ids=input_ids,
    labels=input_ids,
).loss

# --8<-- [start:backward]
loss.backward()
# --8<-- [end:backward]

print(wte_weight.grad is not None)
print(wte_weight.grad.shape)
# --8<-- [end:step]
