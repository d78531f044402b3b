# expect: passed
# The decay written into the update: p - lr * (m_hat / (sqrt(v_hat) + eps) + wd * p), with the
# p of before the step, which is p * (1 - lr * wd) - lr * m_hat / (...). Works on .data.
import torch


class AdamW:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        items = list(params)
        if not items or not isinstance(items[0], dict):
            items = [{"params": items}]
        self.param_groups = []
        for item in items:
            group = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay}
            group.update({k: v for k, v in item.items() if k != "params"})
            group["params"] = [p for p in item["params"]]
            self.param_groups.append(group)
        self.m, self.v, self.t = {}, {}, {}

    def zero_grad(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.grad.zero_()

    def step(self):
        for group in self.param_groups:
            b1, b2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                key = id(p)
                g = p.grad.data
                if key not in self.t:
                    self.t[key] = 0
                    self.m[key] = torch.zeros_like(p.data)
                    self.v[key] = torch.zeros_like(p.data)
                self.t[key] += 1
                t = self.t[key]
                self.m[key] = b1 * self.m[key] + (1 - b1) * g
                self.v[key] = b2 * self.v[key] + (1 - b2) * g * g
                m_hat = self.m[key] / (1 - b1**t)
                v_hat = self.v[key] / (1 - b2**t)
                update = m_hat / (torch.sqrt(v_hat) + group["eps"]) + group["weight_decay"] * p.data
                p.data = p.data - group["lr"] * update
