# expect: rejected
# The helper reached by a name built at run time: the static check cannot see it.
import importlib


def clip_grad_norm_(parameters, max_norm, norm_type=2.0):
    module = importlib.import_module("torch.nn.utils." + "clip" + "_grad")
    fn = getattr(module, "clip_grad" + "_norm_")
    return fn(parameters, max_norm, norm_type)
