# expect: rejected
# torch's Adam reached by a name built at run time, with decoupled decay switched on.
import importlib


class AdamW:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        module = importlib.import_module("torch.optim." + "ad" + "am")
        cls = getattr(module, "Ad" + "am")
        self.inner = cls(
            params,
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            decoupled_weight_decay=True,
        )

    def zero_grad(self):
        self.inner.zero_grad()

    def step(self):
        self.inner.step()
