"""A convolutional classifier with its own training and evaluation loops: two convolutions,
max-pooling, dropout and two linear layers, trained with Adadelta and a step learning-rate
schedule on MNIST-like images (ten noisy stroke patterns, made with NumPy so that every framework
sees the same pixels). Written against PyTorch's API.

    python -m mutograd run --as torch examples/mnist_cnn.py --epochs 2
    python examples/mnist_cnn.py --epochs 2          # on PyTorch itself
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset


def make_images(n, size=16, seed=0):
    """``n`` images of ``size``x``size`` in [0, 1] and their labels: each class is a fixed
    pattern of strokes, shifted by up to two pixels and covered in noise."""
    rng = np.random.default_rng(seed)
    protos = np.zeros((10, size + 4, size + 4), np.float32)
    proto_rng = np.random.default_rng(1234)
    for c in range(10):
        for _ in range(3):
            r0, c0 = proto_rng.integers(2, size + 2, 2)
            if proto_rng.random() < 0.5:
                protos[c, r0, max(c0 - 5, 0):c0 + 5] = 1.0
            else:
                protos[c, max(r0 - 5, 0):r0 + 5, c0] = 1.0
    labels = rng.integers(0, 10, n)
    shifts = rng.integers(0, 5, (n, 2))
    images = np.stack([protos[y, a:a + size, b:b + size] for y, (a, b) in zip(labels, shifts)])
    images = np.clip(images + rng.normal(0, 0.3, images.shape), 0, 1).astype(np.float32)
    return images[:, None], labels.astype(np.int64)


class Net(nn.Module):
    def __init__(self, image_size=16):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        side = (image_size - 4) // 2
        self.fc1 = nn.Linear(64 * side * side, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def train(args, model, device, train_loader, optimizer, epoch, log=print):
    model.train()
    losses = []
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if batch_idx % args.log_interval == 0:
            log("Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}".format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))
            if args.dry_run:
                break
    return losses


def test(model, device, test_loader, log=print):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    accuracy = correct / len(test_loader.dataset)
    log("\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n".format(
        test_loss, correct, len(test_loader.dataset), 100. * accuracy))
    return test_loss, accuracy


def loaders(args):
    mean, std = 0.1307, 0.3081          # the usual MNIST normalisation
    xs, ys = make_images(args.train_size + args.test_size, args.image_size, args.data_seed)
    xs = (torch.from_numpy(xs) - mean) / std
    ys = torch.from_numpy(ys)
    n = args.train_size
    train_set = TensorDataset(xs[:n], ys[:n])
    test_set = TensorDataset(xs[n:], ys[n:])
    return (DataLoader(train_set, batch_size=args.batch_size, shuffle=True),
            DataLoader(test_set, batch_size=args.test_batch_size, shuffle=False))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="MNIST-style convolutional classifier")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--test-batch-size", type=int, default=100)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--lr", type=float, default=1.0)
    p.add_argument("--gamma", type=float, default=0.7)
    p.add_argument("--dry-run", action="store_true", default=False)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--data-seed", type=int, default=0)
    p.add_argument("--image-size", type=int, default=16)
    p.add_argument("--train-size", type=int, default=512)
    p.add_argument("--test-size", type=int, default=200)
    p.add_argument("--log-interval", type=int, default=8)
    p.add_argument("--save-model", type=str, default="",
                   help="a path to save the trained weights to")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    device = torch.device("cpu")
    train_loader, test_loader = loaders(args)
    model = Net(args.image_size).to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)
    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, epoch)
        _, accuracy = test(model, device, test_loader)
        scheduler.step()
    if args.save_model:
        torch.save(model.state_dict(), args.save_model)
    return accuracy


if __name__ == "__main__":
    main()
