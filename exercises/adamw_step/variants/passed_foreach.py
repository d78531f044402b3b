# expect: passed
# The foreach ops, one call per group over the parameters that have a gradient, as torch's
# multi-tensor path does; each parameter keeps its own step count.
import math

import torch


class AdamW:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay}
        params = list(params)
        groups = params if params and isinstance(params[0], dict) else [{"params": params}]
        self.param_groups = [{**defaults, **g, "params": list(g["params"])} for g in groups]
        self.state = {}

    def zero_grad(self):
        for group in self.param_groups:
            for p in group["params"]:
                p.grad = None

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
            beta1, beta2 = group["betas"]
            params = [p for p in group["params"] if p.grad is not None]
            if not params:
                continue
            grads = [p.grad for p in params]
            states = []
            for p in params:
                if p not in self.state:
                    self.state[p] = {"step": 0, "m": torch.zeros_like(p), "v": torch.zeros_like(p)}
                self.state[p]["step"] += 1
                states.append(self.state[p])
            ms = [s["m"] for s in states]
            vs = [s["v"] for s in states]
            torch._foreach_mul_(params, 1 - lr * wd)
            torch._foreach_lerp_(ms, grads, 1 - beta1)
            torch._foreach_mul_(vs, beta2)
            torch._foreach_addcmul_(vs, grads, grads, 1 - beta2)
            denoms = torch._foreach_sqrt(vs)
            torch._foreach_div_(denoms, [math.sqrt(1 - beta2 ** s["step"]) for s in states])
            torch._foreach_add_(denoms, eps)
            steps = [-lr / (1 - beta1 ** s["step"]) for s in states]
            torch._foreach_addcdiv_(params, ms, denoms, steps)
