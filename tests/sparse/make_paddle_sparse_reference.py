"""Write paddle_sparse_reference.json with real Paddle 3.3.1 (CPU build):

    PYTHONPATH=/work/main /work/paddle-venv/bin/python tests/sparse/make_paddle_sparse_reference.py

Each case builds ``sparse_coo_tensor(INDICES, v)`` from float64 values ``v`` that need a gradient,
applies one ``paddle.sparse`` function, and records the result (dense form, and the stored
values) and ``v.grad`` of the loss ``sum(result.values() * weights)``.

Paddle's CPU build has no kernel for the sparse-dense product (``matmul_coo_dense`` is GPU
only), so the GCN case records the dense equivalent in Paddle: ``matmul(adj.to_dense(), x @ w)``
for the output and the gradients of ``x`` and ``w``, and for the gradient of ``adj``'s values
the formula of Paddle's GPU kernel (the dense gradient ``G @ (x @ w)^T`` read at the stored
entries, with ``paddle.gather_nd``).
"""
import json
import os

import numpy as np
import paddle
import paddle.sparse as sparse

paddle.set_default_dtype("float64")
INDICES = [[0, 1, 1, 0, 2], [1, 0, 2, 2, 1]]
SHAPE = [3, 3]
VALUES = [0.5, -1.0, 2.0, 1.5, 0.25]
WEIGHTS = [1.0, -2.0, 0.5, 3.0, -1.0]


def leaf(values):
    return paddle.to_tensor(values, stop_gradient=False)


def record(out, v):
    values = out.values()
    w = paddle.to_tensor(WEIGHTS[:values.shape[0]] if values.ndim == 1 else
                         np.ones(values.shape))
    (values * w).sum().backward()
    if v.grad is None:
        raise RuntimeError("no gradient reached the values")
    return {"dense": out.to_dense().numpy().tolist(), "values": values.numpy().tolist(),
            "indices": out.indices().numpy().tolist() if out.is_sparse_coo() else None,
            "shape": list(out.shape), "grad": v.grad.numpy().tolist()}


UNARY = {
    "abs": sparse.abs, "sin": sparse.sin, "tanh": sparse.tanh, "square": sparse.square,
    "neg": sparse.neg, "asinh": sparse.asinh, "atan": sparse.atan, "expm1": sparse.expm1,
    "pow3": lambda x: sparse.pow(x, 3.0), "relu": sparse.nn.functional.relu,
    # coalesced first: Paddle 3.3.1 mixes up the gradient of an unsorted COO input
    "softmax": lambda x: sparse.nn.functional.softmax(sparse.coalesce(x)),
    "transpose": lambda x: sparse.transpose(x, [1, 0]),
    "reshape": lambda x: sparse.reshape(x, [1, 9]),
    "sum_axis0": lambda x: sparse.sum(x, axis=0),
    "sum_all": sparse.sum,
    "multiply_self": lambda x: sparse.multiply(x, x),
    "add_self": lambda x: sparse.add(x, x),
}
POSITIVE = {"sqrt": sparse.sqrt, "log1p": sparse.log1p}


def main():
    ref = {"indices": INDICES, "shape": SHAPE, "values": VALUES, "weights": WEIGHTS, "cases": {}}
    for name, fn in {**UNARY, **POSITIVE}.items():
        vals = np.abs(VALUES).tolist() if name in POSITIVE else VALUES
        v = leaf(vals)
        try:
            out = fn(sparse.sparse_coo_tensor(INDICES, v, SHAPE, stop_gradient=False))
            ref["cases"][name] = {"input": vals, **record(out, v)}
        except Exception as error:     # a kernel Paddle's CPU build lacks: not recorded
            print(f"{name}: not recorded ({type(error).__name__}: {str(error)[:80]})")

    # to_dense: the gradient of each value is the incoming one at its position
    v = leaf(VALUES)
    g = paddle.to_tensor(np.arange(9.0).reshape(3, 3))
    s = sparse.sparse_coo_tensor(INDICES, v, SHAPE, stop_gradient=False)
    (s.to_dense() * g).sum().backward()
    ref["to_dense_grad"] = v.grad.numpy().tolist()

    # a GCN layer: relu(adj @ (x @ w)), loss = sum(out * weights)
    rng = np.random.default_rng(0)
    adj_idx = [[0, 0, 1, 1, 2, 2, 3, 3], [0, 1, 0, 2, 1, 3, 2, 3]]
    adj_val = rng.uniform(0.1, 1.0, 8).tolist()
    x_np, w_np = rng.standard_normal((4, 3)), rng.standard_normal((3, 2))
    loss_w = rng.standard_normal((4, 2))
    v, x, w = leaf(adj_val), leaf(x_np), leaf(w_np)
    adj = sparse.sparse_coo_tensor(adj_idx, v, [4, 4], stop_gradient=False)
    h = x @ w
    out = paddle.nn.functional.relu(paddle.matmul(adj.to_dense(), h))
    (out * paddle.to_tensor(loss_w)).sum().backward()
    # the values' gradient of the sparse product: (G @ h^T) at the stored entries
    g_pre = paddle.to_tensor(loss_w) * (out > 0).astype("float64")
    grad_adj = paddle.gather_nd(g_pre @ h.detach().T, paddle.to_tensor(adj_idx).T)
    ref["gcn"] = {"indices": adj_idx, "values": adj_val, "x": x_np.tolist(),
                  "w": w_np.tolist(), "loss_weights": loss_w.tolist(),
                  "out": out.numpy().tolist(), "x_grad": x.grad.numpy().tolist(),
                  "w_grad": w.grad.numpy().tolist(),
                  "values_grad": grad_adj.numpy().tolist()}

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "paddle_sparse_reference.json")
    with open(path, "w") as f:
        json.dump(ref, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
