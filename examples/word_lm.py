"""A word-level language model: an RNN (LSTM, GRU, tanh or ReLU) or a Transformer encoder over
word embeddings, trained with truncated back-propagation through time on a small corpus,
evaluated by perplexity, then used to generate text. Written against PyTorch's API.

    python -m mutograd run --as torch examples/word_lm.py --model LSTM --epochs 2
    python -m mutograd run --as torch examples/word_lm.py --model Transformer --epochs 2
    python examples/word_lm.py --model GRU --epochs 2          # on PyTorch itself
"""
import argparse
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

CORPUS = """the quick brown fox jumps over the lazy dog . the dog sleeps in the sun and the fox
runs into the wood . a bird sings in the tall tree and the wind moves the green leaves . the
farmer walks to the field with his old dog and the sun rises over the hill . in the evening the
fox comes back to the edge of the wood and watches the farm . the children play near the river
and the water runs fast over the stones . the old man tells a story about the fox and the dog
and the children listen in the warm light of the fire . the rain falls on the roof and the dog
sleeps by the door . when the morning comes the bird sings again and the farmer goes back to the
field . the fox is quick and the dog is lazy but both of them love the sun ."""


class Dictionary:
    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]

    def __len__(self):
        return len(self.idx2word)


class Corpus:
    """Splits the text into train/valid/test by lines; each line ends with an <eos> token."""

    def __init__(self, text):
        self.dictionary = Dictionary()
        lines = [line.split() + ["<eos>"] for line in text.strip().splitlines()]
        for words in lines:
            for w in words:
                self.dictionary.add_word(w)
        n = len(lines)
        self.train = self.tokenize(lines[: n - 2])
        self.valid = self.tokenize(lines[n - 2: n - 1])
        self.test = self.tokenize(lines[n - 1:])

    def tokenize(self, lines):
        ids = [torch.tensor([self.dictionary.word2idx[w] for w in words]).type(torch.int64)
               for words in lines]
        return torch.cat(ids)


def batchify(data, bsz):
    """Trim the stream to a multiple of bsz and lay it out as bsz columns."""
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


def repackage_hidden(h):
    """Cut the hidden state from its history (truncated back-propagation)."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


class RNNModel(nn.Module):
    """An encoder, a recurrent module and a decoder."""

    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ["LSTM", "GRU"]:
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        else:
            nonlinearity = {"RNN_TANH": "tanh", "RNN_RELU": "relu"}[rnn_type]
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                raise ValueError("When using the tied flag, nhid must be equal to emsize")
            self.decoder.weight = self.encoder.weight
        self.init_weights()
        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == "LSTM":
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))
        return weight.new_zeros(self.nlayers, bsz, self.nhid)


class PositionalEncoding(nn.Module):
    """Sine and cosine positions added to the embeddings."""

    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float()
                             * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[:x.size(0), :]
        return self.dropout(x)


class TransformerModel(nn.Transformer):
    """The encoder half of nn.Transformer with a causal mask, as a language model (the
    Transformer's own decoder is replaced by the output layer)."""

    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
        super().__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid,
                         num_encoder_layers=nlayers, dropout=dropout)
        self.model_type = "Transformer"
        self.src_mask = None
        self.pos_encoder = PositionalEncoding(ninp, dropout)
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)
        self.init_weights()

    def _generate_square_subsequent_mask(self, sz):
        return torch.log(torch.tril(torch.ones(sz, sz)))

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.input_emb.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, src, has_mask=True):
        if has_mask:
            if self.src_mask is None or self.src_mask.size(0) != len(src):
                self.src_mask = self._generate_square_subsequent_mask(len(src)).to(src.device)
        else:
            self.src_mask = None
        src = self.input_emb(src) * math.sqrt(self.ninp)
        src = self.pos_encoder(src)
        output = self.encoder(src, mask=self.src_mask)
        output = self.decoder(output)
        return F.log_softmax(output, dim=-1)


def build_model(args, ntokens):
    if args.model == "Transformer":
        return TransformerModel(ntokens, args.emsize, args.nhead, args.nhid, args.nlayers,
                                args.dropout)
    return RNNModel(args.model, ntokens, args.emsize, args.nhid, args.nlayers, args.dropout,
                    args.tied)


def evaluate(model, data_source, args, ntokens, criterion):
    model.eval()
    total_loss = 0.0
    if args.model != "Transformer":
        hidden = model.init_hidden(data_source.size(1))
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, args.bptt):
            data, targets = get_batch(data_source, i, args.bptt)
            if args.model == "Transformer":
                output = model(data)
                output = output.view(-1, ntokens)
            else:
                output, hidden = model(data, hidden)
                hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


def train_epoch(model, train_data, args, ntokens, criterion, lr, log=print):
    """One pass over the training stream: plain SGD on p.data, gradient clipping; the losses."""
    model.train()
    losses = []
    if args.model != "Transformer":
        hidden = model.init_hidden(args.batch_size)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
        data, targets = get_batch(train_data, i, args.bptt)
        model.zero_grad()
        if args.model == "Transformer":
            output = model(data)
            output = output.view(-1, ntokens)
        else:
            hidden = repackage_hidden(hidden)
            output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        losses.append(loss.item())
        if batch % args.log_interval == 0 and batch > 0:
            log(f"| batch {batch:3d} | lr {lr:02.2f} | loss {losses[-1]:5.2f} "
                f"| ppl {math.exp(losses[-1]):8.2f}")
    return losses


def generate(model, corpus, args, n_words, temperature=1.0, seed=1111):
    """Sample words from the model, one at a time, feeding each back in."""
    torch.manual_seed(seed)
    ntokens = len(corpus.dictionary)
    model.eval()
    input = torch.randint(ntokens, (1, 1), dtype=torch.long)
    if args.model != "Transformer":
        hidden = model.init_hidden(1)
    words = []
    with torch.no_grad():
        for _ in range(n_words):
            if args.model == "Transformer":
                output = model(input, False)
                word_weights = output[-1].squeeze().div(temperature).exp().cpu()
                word_idx = torch.multinomial(word_weights, 1)[0]
                word_tensor = torch.Tensor([[word_idx]]).long()
                input = torch.cat([input, word_tensor], 0)
            else:
                output, hidden = model(input, hidden)
                word_weights = output.squeeze().div(temperature).exp().cpu()
                word_idx = torch.multinomial(word_weights, 1)[0]
                input.fill_(word_idx)
            words.append(corpus.dictionary.idx2word[word_idx])
    return words


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="word-level language model")
    p.add_argument("--model", type=str, default="LSTM",
                   help="RNN_TANH, RNN_RELU, LSTM, GRU or Transformer")
    p.add_argument("--emsize", type=int, default=32)
    p.add_argument("--nhid", type=int, default=32)
    p.add_argument("--nlayers", type=int, default=2)
    p.add_argument("--lr", type=float, default=5.0)
    p.add_argument("--clip", type=float, default=0.25)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch_size", type=int, default=4)
    p.add_argument("--bptt", type=int, default=12)
    p.add_argument("--dropout", type=float, default=0.2)
    p.add_argument("--tied", action="store_true")
    p.add_argument("--seed", type=int, default=1111)
    p.add_argument("--nhead", type=int, default=2)
    p.add_argument("--log-interval", type=int, default=10)
    p.add_argument("--words", type=int, default=12, help="words to generate at the end")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    corpus = Corpus(CORPUS)
    train_data = batchify(corpus.train, args.batch_size)
    val_data = batchify(corpus.valid, 1)
    test_data = batchify(corpus.test, 1)
    ntokens = len(corpus.dictionary)
    model = build_model(args, ntokens)
    criterion = nn.NLLLoss()
    lr, best_val_loss = args.lr, None
    for epoch in range(1, args.epochs + 1):
        start = time.time()
        train_epoch(model, train_data, args, ntokens, criterion, lr)
        val_loss = evaluate(model, val_data, args, ntokens, criterion)
        print(f"| end of epoch {epoch:3d} | time: {time.time() - start:5.2f}s | "
              f"valid loss {val_loss:5.2f} | valid ppl {math.exp(val_loss):8.2f}")
        if best_val_loss is None or val_loss < best_val_loss:
            best_val_loss = val_loss
        else:
            lr /= 4.0
    test_loss = evaluate(model, test_data, args, ntokens, criterion)
    print(f"| end of training | test loss {test_loss:5.2f} | test ppl {math.exp(test_loss):8.2f}")
    print("generated:", " ".join(generate(model, corpus, args, args.words)))
    return test_loss


if __name__ == "__main__":
    main()
