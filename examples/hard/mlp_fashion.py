#!/usr/bin/python3
"""A multi-layer perceptron on Fashion-MNIST, a hard tuning problem of five
hyper-parameters (issue #26; configs/compare-mlp-fashion.ini).

A persistent `command` objective (examples/hard/hardlib.py has the protocol):
each request names

  lr=         Adam's initial learning rate, > 0
  width=      units per hidden layer, an integer >= 1
  alpha=      the L2 penalty, >= 0
  layers=     hidden layers, an integer 1 to 4
  activation= relu | tanh | logistic

and is answered with the accuracy of scikit-learn's MLPClassifier trained
with them on the training rows (pixels / 255, a fixed number of epochs,
random_state fixed), on the validation rows (or the test rows: --score).

  examples/hard/mlp_fashion.py [--score validation|test|both] [--data IMAGES.gz]
"""
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hardlib  # noqa: E402  (sets one thread before numpy is imported)

import numpy as np  # noqa: E402

PROG = "mlp_fashion.py"
NAMES = ("lr", "width", "alpha", "layers", "activation")
ACTIVATIONS = ("relu", "tanh", "logistic")
DATA = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"


def main():
    p = hardlib.parser(__doc__.split("\n")[0], (2000, 1000, 1000, 26))
    p.add_argument("--epochs", type=int, default=20, help="Adam's epochs (default 20)")
    args = p.parse_args()
    images = args.data or DATA
    labels = images.replace("images-idx3", "labels-idx1")
    if labels == images:
        hardlib.fail(PROG, f"{images}: the labels file is found by replacing 'images-idx3' "
                           "with 'labels-idx1' in the images file's name")
    X = hardlib.read_idx(images, PROG)
    y = hardlib.read_idx(labels, PROG)
    if X.ndim != 3 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        hardlib.fail(PROG, f"{images} and {labels} are not images and their labels")
    X = X.reshape(X.shape[0], -1).astype(np.float64) / 255.0
    tr, va, te = hardlib.split(X.shape[0], args, PROG)

    def evaluate(req):
        lr = hardlib.number("lr", req["lr"], 1e-12, 1e3)
        width = hardlib.number("width", req["width"], 1, 100000, integer=True)
        alpha = hardlib.number("alpha", req["alpha"], 0, 1e6)
        layers = hardlib.number("layers", req["layers"], 1, 4, integer=True)
        if req["activation"] not in ACTIVATIONS:
            raise hardlib.RequestError(f"activation={req['activation']} is not one of "
                                       f"{', '.join(ACTIVATIONS)}")
        # Imported at the first good request: a bad request or setting fails
        # at once, without the second it takes to import scikit-learn.
        from sklearn.neural_network import MLPClassifier
        model = MLPClassifier(hidden_layer_sizes=(width,) * layers,
                              activation=req["activation"], solver="adam",
                              learning_rate_init=lr, alpha=alpha, batch_size=100,
                              max_iter=args.epochs, shuffle=True, random_state=0,
                              tol=0.0, n_iter_no_change=args.epochs + 1)
        with warnings.catch_warnings():
            # Too few epochs to converge is the point of a fixed budget; an
            # overflow of a diverging lr gives a poor accuracy, not a failure.
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                model.fit(X[tr], y[tr])
                return model.score(X[va], y[va]), model.score(X[te], y[te])

    hardlib.serve(PROG, args, NAMES, evaluate)


if __name__ == "__main__":
    main()
