"""Writes paddle_reference.json: values that Paddle 3.3.1's ``paddle.distribution`` gives for
the cases of test_compat_distributions.py that check the Paddle dialect's newer names. Run it
with a Python that has Paddle (``/work/paddle-venv/bin/python
tests/distributions/make_paddle_reference.py``); the tests only read the file."""
import json
import pathlib

import numpy as np
import paddle
import paddle.distribution as PD


def _list(t):
    return np.asarray(t.numpy(), dtype=float).tolist()


def main():
    paddle.set_default_dtype("float64")
    out = {}
    probs = paddle.to_tensor([0.15, 0.4999, 0.7, 0.93], dtype="float64")
    value = paddle.to_tensor([0.3, 0.6, 0.1, 0.9], dtype="float64")
    cb = PD.ContinuousBernoulli(probs)
    out["ContinuousBernoulli"] = {
        "probs": _list(probs), "value": _list(value), "log_prob": _list(cb.log_prob(value)),
        "prob": _list(cb.prob(value)), "mean": _list(cb.mean), "variance": _list(cb.variance),
        "entropy": _list(cb.entropy()), "cdf": _list(cb.cdf(value)),
        "icdf": _list(cb.icdf(value)),
        "kl": _list(cb.kl_divergence(PD.ContinuousBernoulli(paddle.to_tensor(
            [0.3, 0.6, 0.2, 0.5], dtype="float64"))))}
    corr = np.array([[1.0, 0.3, 0.2], [0.3, 1.0, -0.4], [0.2, -0.4, 1.0]])
    L = np.linalg.cholesky(corr)
    lkj = PD.LKJCholesky(3, paddle.to_tensor([0.5, 2.0], dtype="float64"))
    out["LKJCholesky"] = {"dim": 3, "concentration": [0.5, 2.0], "value": L.tolist(),
                          "log_prob": _list(lkj.log_prob(paddle.to_tensor(L)))}
    mp = paddle.to_tensor([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]], dtype="float64")
    counts = paddle.to_tensor([[1.0, 2.0, 3.0], [0.0, 6.0, 0.0]], dtype="float64")
    m = PD.Multinomial(6, mp)
    out["Multinomial"] = {"total_count": 6, "probs": _list(mp), "value": _list(counts),
                          "log_prob": _list(m.log_prob(counts)), "mean": _list(m.mean),
                          "variance": _list(m.variance), "entropy": _list(m.entropy())}
    x = paddle.to_tensor(np.linspace(-1, 1, 12).reshape(2, 6), dtype="float64")
    transforms = {
        "IndependentTransform": PD.IndependentTransform(PD.ExpTransform(), 1),
        "ReshapeTransform": PD.ReshapeTransform((6,), (2, 3)),
        "StackTransform": PD.StackTransform([PD.ExpTransform(), PD.SigmoidTransform()], 0),
    }
    out["transforms"] = {"x": _list(x)}
    for name, t in transforms.items():
        y = t.forward(x)
        out["transforms"][name] = {"forward": _list(y), "inverse": _list(t.inverse(y)),
                                   "forward_log_det_jacobian": _list(
                                       t.forward_log_det_jacobian(x)),
                                   "forward_shape": list(t.forward_shape([2, 6]))}
    path = pathlib.Path(__file__).with_name("paddle_reference.json")
    lines = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in out.items()]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n")


if __name__ == "__main__":
    main()
