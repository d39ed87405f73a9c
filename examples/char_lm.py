"""Character-level language models (bigram, MLP, RNN, GRU, bag-of-words) that learn to make up
names, trained from a Dataset through a DataLoader. Written against PyTorch's API.

    python -m mutograd run --as torch examples/char_lm.py --model gru --steps 200
    python examples/char_lm.py --model gru --steps 200          # on PyTorch itself
"""
import argparse
import time
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.utils.data import Dataset
from torch.utils.data.dataloader import DataLoader
from torch.utils.data.sampler import RandomSampler

NAMES = """emma olivia ava isabella sophia charlotte mia amelia harper evelyn abigail emily
elizabeth mila ella avery sofia camila aria scarlett victoria madison luna grace chloe penelope
layla riley zoey nora lily eleanor hannah lillian addison aubrey ellie stella natalie zoe leah
hazel violet aurora savannah audrey brooklyn bella claire skylar lucy paisley everly anna caroline
nova genesis emilia kennedy samantha maya willow kinsley naomi aaliyah elena sarah ariana allison
gabriella alice madelyn cora ruby eva serenity autumn adeline hailey gianna valentina isla eliana
quinn nevaeh ivy sadie piper lydia alexa josephine emery julia delilah arianna vivian kaylee
sophie brielle madeline liam noah william james oliver benjamin elijah lucas mason logan alexander
ethan jacob michael daniel henry jackson sebastian aiden matthew samuel david joseph carter owen
wyatt john jack luke jayden dylan grayson levi isaac gabriel julian mateo anthony jaxon lincoln
joshua christopher andrew theodore caleb ryan asher nathan thomas leo isaiah charles josiah hudson
christian hunter connor eli ezra aaron landon adrian jonathan nolan jeremiah easton elias colton
cameron carson robert angel maverick nicholas dominic jaxson greyson adam ian austin santiago
jordan cooper brayden roman evan ezekiel xavier jose jace jameson leonardo bryson axel everett
""".split()


@dataclass
class ModelConfig:
    block_size: int = None   # length of the longest name + 1 (the start token)
    vocab_size: int = None   # characters + the start/end token 0
    n_embd: int = 16
    n_embd2: int = 32


class CharDataset(Dataset):
    """Names as (input, target) index sequences: input starts with token 0, the target ends
    with it, and positions past the end are -1 (ignored by the loss)."""

    def __init__(self, words, chars, max_word_length):
        self.words = words
        self.chars = chars
        self.max_word_length = max_word_length
        self.stoi = {ch: i + 1 for i, ch in enumerate(chars)}
        self.itos = {i: s for s, i in self.stoi.items()}

    def __len__(self):
        return len(self.words)

    def get_vocab_size(self):
        return len(self.chars) + 1

    def get_output_length(self):
        return self.max_word_length + 1

    def encode(self, word):
        return torch.tensor([self.stoi[w] for w in word], dtype=torch.long)

    def decode(self, ix):
        return "".join(self.itos[i] for i in ix)

    def __getitem__(self, idx):
        ix = self.encode(self.words[idx])
        x = torch.zeros(self.max_word_length + 1, dtype=torch.long)
        y = torch.zeros(self.max_word_length + 1, dtype=torch.long)
        x[1:1 + len(ix)] = ix
        y[:len(ix)] = ix
        y[len(ix) + 1:] = -1
        return x, y


def lm_loss(logits, targets):
    """Cross-entropy over every position; -1 targets count for nothing."""
    if targets is None:
        return None
    return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)


class Bigram(nn.Module):
    """A table of next-character logits, looked up by indexing a Parameter."""

    def __init__(self, config):
        super().__init__()
        n = config.vocab_size
        self.logits = nn.Parameter(torch.zeros((n, n)))

    def get_block_size(self):
        return 1

    def forward(self, idx, targets=None):
        logits = self.logits[idx]
        return logits, lm_loss(logits, targets)


class MLP(nn.Module):
    """Embeddings of the previous ``block_size`` characters, concatenated, through an MLP."""

    def __init__(self, config):
        super().__init__()
        self.block_size = config.block_size
        self.vocab_size = config.vocab_size
        self.wte = nn.Embedding(config.vocab_size + 1, config.n_embd)   # +1: "before start"
        self.mlp = nn.Sequential(
            nn.Linear(self.block_size * config.n_embd, config.n_embd2),
            nn.Tanh(),
            nn.Linear(config.n_embd2, self.vocab_size),
        )

    def get_block_size(self):
        return self.block_size

    def forward(self, idx, targets=None):
        embs = []
        for _ in range(self.block_size):
            embs.append(self.wte(idx))
            idx = torch.roll(idx, 1, 1)
            idx[:, 0] = self.vocab_size
        x = torch.cat(embs, -1)
        logits = self.mlp(x)
        return logits, lm_loss(logits, targets)


class RNNCell(nn.Module):
    """h' = tanh(W [x, h] + b)."""

    def __init__(self, config):
        super().__init__()
        self.xh_to_h = nn.Linear(config.n_embd + config.n_embd2, config.n_embd2)

    def forward(self, xt, hprev):
        xh = torch.cat([xt, hprev], dim=1)
        return F.tanh(self.xh_to_h(xh))


class GRUCell(nn.Module):
    """A gated recurrent unit from three Linear layers."""

    def __init__(self, config):
        super().__init__()
        self.xh_to_z = nn.Linear(config.n_embd + config.n_embd2, config.n_embd2)
        self.xh_to_r = nn.Linear(config.n_embd + config.n_embd2, config.n_embd2)
        self.xh_to_hbar = nn.Linear(config.n_embd + config.n_embd2, config.n_embd2)

    def forward(self, xt, hprev):
        xh = torch.cat([xt, hprev], dim=1)
        r = F.sigmoid(self.xh_to_r(xh))
        hbar = F.tanh(self.xh_to_hbar(torch.cat([xt, r * hprev], dim=1)))
        z = F.sigmoid(self.xh_to_z(xh))
        return (1 - z) * hprev + z * hbar


class RNN(nn.Module):

    def __init__(self, config, cell_type):
        super().__init__()
        self.block_size = config.block_size
        self.vocab_size = config.vocab_size
        self.start = nn.Parameter(torch.zeros(1, config.n_embd2))   # the first hidden state
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.cell = RNNCell(config) if cell_type == "rnn" else GRUCell(config)
        self.lm_head = nn.Linear(config.n_embd2, self.vocab_size)

    def get_block_size(self):
        return self.block_size

    def forward(self, idx, targets=None):
        b, t = idx.size()
        emb = self.wte(idx)
        hprev = self.start.expand((b, -1))
        hiddens = []
        for i in range(t):
            hprev = self.cell(emb[:, i, :], hprev)
            hiddens.append(hprev)
        logits = self.lm_head(torch.stack(hiddens, 1))
        return logits, lm_loss(logits, targets)


class CausalBoW(nn.Module):
    """Each position averages the positions up to it (a uniform causal attention)."""

    def __init__(self, config):
        super().__init__()
        self.block_size = config.block_size
        self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                             .view(1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size()
        att = torch.zeros((B, T, T), device=x.device)
        att = att.masked_fill(self.bias[:, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        return att @ x


class BoWBlock(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.cbow = CausalBoW(config)
        self.mlp = nn.ModuleDict(dict(
            c_fc=nn.Linear(config.n_embd, config.n_embd2),
            c_proj=nn.Linear(config.n_embd2, config.n_embd),
        ))
        m = self.mlp
        self.mlpf = lambda x: m.c_proj(F.tanh(m.c_fc(x)))     # a plain attribute, not a module

    def forward(self, x):
        x = x + self.cbow(x)
        return x + self.mlpf(x)


class BoW(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.block_size = config.block_size
        self.vocab_size = config.vocab_size
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.block_size, config.n_embd)
        self.context_block = BoWBlock(config)
        self.lm_head = nn.Linear(config.n_embd, self.vocab_size)

    def get_block_size(self):
        return self.block_size

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device).unsqueeze(0)
        x = self.wte(idx) + self.wpe(pos)
        logits = self.lm_head(self.context_block(x))
        return logits, lm_loss(logits, targets)


MODELS = {"bigram": Bigram, "mlp": MLP, "rnn": lambda c: RNN(c, "rnn"),
          "gru": lambda c: RNN(c, "gru"), "bow": BoW}


def create_datasets(words, test_fraction=0.1):
    chars = sorted(set("".join(words)))
    max_len = max(len(w) for w in words)
    perm = torch.randperm(len(words)).tolist()
    n_test = max(1, int(len(words) * test_fraction))
    train = [words[i] for i in perm[:-n_test]]
    test = [words[i] for i in perm[-n_test:]]
    return CharDataset(train, chars, max_len), CharDataset(test, chars, max_len)


@torch.no_grad()
def generate(model, idx, max_new_tokens, temperature=1.0, do_sample=False, top_k=None):
    """Extend ``idx`` (B, T) by ``max_new_tokens``, sampling from the top ``top_k`` logits."""
    block_size = model.get_block_size()
    for _ in range(max_new_tokens):
        idx_cond = idx if idx.size(1) <= block_size else idx[:, -block_size:]
        logits, _ = model(idx_cond)
        logits = logits[:, -1, :] / temperature
        if top_k is not None:
            v, _ = torch.topk(logits, top_k)
            logits[logits < v[:, [-1]]] = -float("Inf")
        probs = F.softmax(logits, dim=-1)
        if do_sample:
            idx_next = torch.multinomial(probs, num_samples=1)
        else:
            _, idx_next = torch.topk(probs, k=1, dim=-1)
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


@torch.inference_mode()
def evaluate(model, dataset, batch_size=50, max_batches=None):
    model.eval()
    loader = DataLoader(dataset, shuffle=True, batch_size=batch_size, num_workers=0)
    losses = []
    for i, (X, Y) in enumerate(loader):
        _, loss = model(X, Y)
        losses.append(loss.item())
        if max_batches is not None and i >= max_batches:
            break
    model.train()
    return torch.tensor(losses).mean().item()


class InfiniteDataLoader:
    """Batches forever: a RandomSampler with replacement and a huge ``num_samples``."""

    def __init__(self, dataset, **kwargs):
        sampler = RandomSampler(dataset, replacement=True, num_samples=int(1e10))
        self.train_loader = DataLoader(dataset, sampler=sampler, **kwargs)
        self.data_iter = iter(self.train_loader)

    def next(self):
        try:
            batch = next(self.data_iter)
        except StopIteration:
            self.data_iter = iter(self.train_loader)
            batch = next(self.data_iter)
        return batch


def main():
    parser = argparse.ArgumentParser(description="character-level language models")
    parser.add_argument("--model", choices=sorted(MODELS), default="gru")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=3407)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    train_dataset, test_dataset = create_datasets(NAMES)
    config = ModelConfig(vocab_size=train_dataset.get_vocab_size(),
                         block_size=train_dataset.get_output_length())
    model = MODELS[args.model](config)
    print(f"model {args.model}: {sum(p.numel() for p in model.parameters())} parameters")
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.01,
                                  betas=(0.9, 0.99), eps=1e-8)
    batch_loader = InfiniteDataLoader(train_dataset, batch_size=args.batch_size,
                                      pin_memory=True, num_workers=0)
    t0 = time.time()
    for step in range(args.steps):
        X, Y = batch_loader.next()
        _, loss = model(X, Y)
        model.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % 25 == 0 or step == args.steps - 1:
            print(f"step {step} | loss {loss.item():.4f}")
    print(f"{args.steps} steps in {time.time() - t0:.2f}s; "
          f"test loss {evaluate(model, test_dataset, max_batches=4):.4f}")
    start = torch.zeros(5, 1, dtype=torch.long)
    out = generate(model, start, train_dataset.get_output_length() - 1, do_sample=True,
                   top_k=None).tolist()
    for row in out:
        row = row[1:]
        row = row[:row.index(0)] if 0 in row else row
        print("sample:", train_dataset.decode(row))


if __name__ == "__main__":
    main()
