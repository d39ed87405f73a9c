"""A small CNN classifier of 8x8 digit images, written against PyTorch's API.

    python -m mutograd run --as torch examples/cnn.py --epochs 3
    python examples/cnn.py --epochs 3              # on PyTorch itself
"""
import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    """conv-bn-relu-pool twice, dropout, two linear layers."""

    def __init__(self, num_classes=10, width=8):
        super().__init__()
        self.conv1 = nn.Conv2d(1, width, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, 2 * width, kernel_size=3, padding=1)
        self.bn2 = nn.BatchNorm2d(2 * width)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(2 * width * 2 * 2, 32)
        self.fc2 = nn.Linear(32, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = torch.flatten(x, 1)
        x = self.dropout(x)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


def train_epoch(model, loader, optimizer, scheduler=None):
    model.train()
    total, n = 0.0, 0
    for data, target in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(data), target)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(data)
        n += len(data)
    if scheduler is not None:
        scheduler.step()
    return total / n


@torch.no_grad()
def test(model, loader):
    model.eval()
    correct, loss, n = 0, 0.0, 0
    for data, target in loader:
        output = model(data)
        loss += F.cross_entropy(output, target, reduction="sum").item()
        correct += (output.argmax(dim=1) == target).sum().item()
        n += len(data)
    return loss / n, correct / n


def digits(seed=0, n=600):
    """Synthetic 8x8 'digits': a class-specific stroke pattern plus noise (no download)."""
    rng = np.random.default_rng(seed)
    protos = rng.random((10, 8, 8)) > 0.6
    y = rng.integers(0, 10, n)
    x = protos[y] * 1.0 + 0.3 * rng.standard_normal((n, 8, 8))
    return x[:, None].astype(np.float32), y.astype(np.int64)


def main():
    parser = argparse.ArgumentParser(description="CNN on 8x8 digits")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.05)
    args = parser.parse_args()
    torch.manual_seed(1)
    x, y = digits()
    train = TensorDataset(torch.from_numpy(x[:500]), torch.from_numpy(y[:500]))
    held = TensorDataset(torch.from_numpy(x[500:]), torch.from_numpy(y[500:]))
    train_loader = DataLoader(train, batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(held, batch_size=100)
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9,
                                weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    for epoch in range(1, args.epochs + 1):
        t0 = time.time()
        loss = train_epoch(model, train_loader, optimizer, scheduler)
        test_loss, acc = test(model, test_loader)
        print(f"epoch {epoch}: train loss {loss:.4f}, test loss {test_loss:.4f}, "
              f"accuracy {acc:.1%} ({time.time() - t0:.2f}s)")


if __name__ == "__main__":
    main()
