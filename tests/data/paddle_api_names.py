"""Record Paddle 3.3.1's public names per namespace into paddle_api_names.json (read by
tests/test_compat_paddle_api.py for the coverage floor and by docs/compat.md's numbers).

    python tests/data/paddle_api_names.py      # where paddlepaddle==3.3.1 is installed
"""
import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paddle_api_names.json")
NAMESPACES = ["nn", "nn.functional", "optimizer", "io", "autograd", "base.dygraph", "metric",
              "vision.transforms", "nn.initializer", "optimizer.lr"]


def public(mod):
    names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
    return sorted({n for n in names if not n.startswith("_")})


def main():
    import paddle
    out = {"paddle": public(paddle),
           "paddle.Tensor": sorted(n for n in dir(paddle.Tensor) if not n.startswith("_"))}
    for ns in NAMESPACES:
        mod = paddle
        for part in ns.split("."):
            mod = getattr(mod, part)
        out["paddle." + ns] = public(mod)
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
