# expect: rejected
# The functional form behind torch.optim.AdamW, called with hand-made state.
import torch
from torch.optim.adamw import adamw


class AdamW:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        params = list(params)
        groups = params if params and isinstance(params[0], dict) else [{"params": params}]
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        self.param_groups = [{**defaults, **g, "params": list(g["params"])} for g in groups]
        self.state = {}

    def zero_grad(self):
        for g in self.param_groups:
            for p in g["params"]:
                p.grad = None

    @torch.no_grad()
    def step(self):
        for g in self.param_groups:
            ps = [p for p in g["params"] if p.grad is not None]
            for p in ps:
                self.state.setdefault(
                    p, {"m": torch.zeros_like(p), "v": torch.zeros_like(p), "t": torch.tensor(0.0)}
                )
            adamw(
                ps,
                [p.grad for p in ps],
                [self.state[p]["m"] for p in ps],
                [self.state[p]["v"] for p in ps],
                [],
                [self.state[p]["t"] for p in ps],
                amsgrad=False,
                beta1=g["betas"][0],
                beta2=g["betas"][1],
                lr=g["lr"],
                weight_decay=g["weight_decay"],
                eps=g["eps"],
                maximize=False,
            )
