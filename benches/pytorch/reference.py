#!/usr/bin/env python3
"""PyTorch's answer to the question burn-swap answers: the largest batch that
trains under a device-memory cap, and its speed, for the layer stacks of
burn-swap's bench models (VGG16 on CIFAR shapes, ResNet-50 on ImageNet
shapes, GPT-small with its full vocabulary head), each with PyTorch's own
ways to spend less device memory:

- plain: everything saved stays on the device;
- checkpoint: `torch.utils.checkpoint` around each block (VGG16's stages,
  ResNet-50's bottlenecks, GPT's decoder blocks), recomputed in backward;
- save-on-cpu: `torch.autograd.graph.save_on_cpu(pin_memory=True)`, every
  saved tensor copied to pinned host memory and back.

The cap is the one burn-swap's example and bench take (`--device-memory`):
before the model is built, one allocation holds all of the device's free
memory but the cap, so the driver decides out-of-memory as on a smaller card.
A batch fits when all its timed steps ran. Samples/s is the batch over the
median time of the timed steps (each step synchronised).

Needs only PyTorch (and torchvision for ResNet-50). Results go to stdout and,
with --json, to a file rewritten after every batch tried.
"""

import argparse
import gc
import json
import math
import resource
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


def parse_bytes(text):
    units = {"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30,
             "kb": 10**3, "mb": 10**6, "gb": 10**9}
    text = text.strip().lower()
    number = text.rstrip("abcdefghijklmnopqrstuvwxyz")
    return int(float(number) * units[text[len(number):]])


# --- The models: the same layer stacks as burn-swap's `models` crate. ---

VGG_STAGES = [[64, 64], [128, 128], [256, 256, 256], [512, 512, 512], [512, 512, 512]]


class Vgg16Cifar(nn.Module):
    """Thirteen 3x3 convolutions with biases and relu, a 2x2 max-pool ending
    each stage, 512 features to a 10-class linear layer (no batch-norm)."""

    def __init__(self, classes=10):
        super().__init__()
        stages, cin = [], 3
        for widths in VGG_STAGES:
            layers = []
            for cout in widths:
                layers += [nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU()]
                cin = cout
            layers.append(nn.MaxPool2d(2, 2))
            stages.append(nn.Sequential(*layers))
        self.stages = nn.ModuleList(stages)
        self.classifier = nn.Linear(512, classes)

    def blocks(self):
        return list(self.stages)

    def forward(self, x, wrap):
        for stage in self.stages:
            x = wrap(stage, x)
        return self.classifier(torch.flatten(x, 1))


class ResNet50(nn.Module):
    """torchvision's ResNet-50 (v1.5: the stride on the 3x3 convolution)."""

    def __init__(self, classes=1000):
        super().__init__()
        import torchvision

        self.net = torchvision.models.resnet50(num_classes=classes)

    def blocks(self):
        n = self.net
        return [b for layer in (n.layer1, n.layer2, n.layer3, n.layer4) for b in layer]

    def forward(self, x, wrap):
        n = self.net
        x = n.maxpool(n.relu(n.bn1(n.conv1(x))))
        for block in self.blocks():
            x = wrap(block, x)
        return n.fc(torch.flatten(n.avgpool(x), 1))


class Attention(nn.Module):
    """Burn's `MultiHeadAttention`: query, key, value and output projections
    with biases, the scores materialised, masked, softmaxed and dropped out."""

    def __init__(self, width, heads, dropout):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(width, width)
        self.key = nn.Linear(width, width)
        self.value = nn.Linear(width, width)
        self.output = nn.Linear(width, width)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask):
        n, t, w = x.shape
        d = w // self.heads

        def split(y):
            return y.view(n, t, self.heads, d).transpose(1, 2)

        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(d)
        scores = scores.masked_fill(mask, float("-inf"))
        weights = self.dropout(torch.softmax(scores, dim=-1))
        context = (weights @ v).transpose(1, 2).reshape(n, t, w)
        return self.output(context)


class GptBlock(nn.Module):
    def __init__(self, width, heads, dropout):
        super().__init__()
        self.ln1 = nn.LayerNorm(width)
        self.attention = Attention(width, heads, dropout)
        self.ln2 = nn.LayerNorm(width)
        self.fc = nn.Linear(width, 4 * width)
        self.proj = nn.Linear(4 * width, width)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask):
        x = x + self.dropout(self.attention(self.ln1(x), mask))
        return x + self.dropout(self.proj(F.gelu(self.fc(self.ln2(x)))))


class GptSmall(nn.Module):
    """GPT-2 small as burn-swap's `Gpt`: 12 pre-norm blocks, width 768, 12
    heads, sequence 1024, vocabulary 50257, dropout 0.1, a bias-free head."""

    def __init__(self, layers=12, width=768, heads=12, seq=1024, vocab=50257, dropout=0.1):
        super().__init__()
        self.seq, self.vocab = seq, vocab
        self.tokens = nn.Embedding(vocab, width)
        self.positions = nn.Embedding(seq, width)
        self.dropout = nn.Dropout(dropout)
        self.layers = nn.ModuleList(GptBlock(width, heads, dropout) for _ in range(layers))
        self.ln_f = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)

    def blocks(self):
        return list(self.layers)

    def forward(self, tokens, wrap):
        n, t = tokens.shape
        positions = torch.arange(t, device=tokens.device).expand(n, t)
        x = self.dropout(self.tokens(tokens) + self.positions(positions))
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool, device=tokens.device), 1)
        for block in self.layers:
            x = wrap(lambda y, b=block: b(y, mask), x)
        return self.head(self.ln_f(x))


def make_model(name):
    return {"vgg16": Vgg16Cifar, "resnet50": ResNet50, "gpt-small": GptSmall}[name]()


def make_batch(name, model, batch, device):
    g = torch.Generator(device=device).manual_seed(batch)
    if name == "vgg16":
        x = torch.randn(batch, 3, 32, 32, device=device, generator=g)
        return x, torch.randint(0, 10, (batch,), device=device, generator=g)
    if name == "resnet50":
        x = torch.randn(batch, 3, 224, 224, device=device, generator=g)
        return x, torch.randint(0, 1000, (batch,), device=device, generator=g)
    tokens = torch.randint(0, model.vocab, (batch, model.seq), device=device, generator=g)
    return tokens, torch.randint(0, model.vocab, (batch, model.seq), device=device, generator=g)


def loss_of(model, x, y, policy):
    if policy == "checkpoint":
        def wrap(f, t):
            return checkpoint(f, t, use_reentrant=False)
    else:
        def wrap(f, t):
            return f(t)
    logits = model(x, wrap)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


def step(model, optimizer, x, y, policy):
    optimizer.zero_grad(set_to_none=True)
    if policy == "save-on-cpu":
        with torch.autograd.graph.save_on_cpu(pin_memory=True):
            loss = loss_of(model, x, y, policy)
    else:
        loss = loss_of(model, x, y, policy)
    loss.backward()
    optimizer.step()
    return loss.item()  # waits for the device


OUT_OF_MEMORY = ("out of memory", "CUBLAS_STATUS_ALLOC_FAILED", "CUDNN_STATUS_ALLOC_FAILED",
                 "CUDNN_STATUS_NOT_ENOUGH_WORKSPACE", "cudaErrorMemoryAllocation")


def host_memory_bytes():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return None


def peak_rss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def try_batch(name, model, optimizer, policy, batch, args, device, held, host_per_sample):
    """Trains `args.warmup + args.steps` steps at `batch`: a dict row. With
    save-on-cpu, a batch whose pinned copies would need more than 90% of the
    host's memory (at the bytes per sample of the last batch that fitted)
    is not tried: the kernel would end the process."""
    row = {"model": name, "policy": policy, "batch": batch}
    host = host_memory_bytes()
    if host_per_sample and host and batch * host_per_sample > 0.9 * host:
        need = batch * host_per_sample
        row.update(fits=False, peak_allocated_bytes=0, peak_reserved_bytes=0,
                   error=f"not tried: about {need / 2**30:.0f} GiB of host memory needed, the host has {host / 2**30:.0f} GiB")
        return row
    x = y = None
    torch.cuda.reset_peak_memory_stats(device)
    try:
        x, y = make_batch(name, model, batch, device)
        times, losses = [], []
        for i in range(args.warmup + args.steps):
            torch.cuda.synchronize(device)
            started = time.perf_counter()
            losses.append(step(model, optimizer, x, y, policy))
            took = time.perf_counter() - started
            if i >= args.warmup:
                times.append(took)
        median = statistics.median(times)
        row.update(fits=True, samples_per_s=batch / median, step_ms=median * 1e3,
                   step_ms_all=[t * 1e3 for t in times], loss_last=losses[-1])
    except (torch.OutOfMemoryError, RuntimeError) as err:
        text = str(err)
        if not any(s in text for s in OUT_OF_MEMORY):
            raise
        row.update(fits=False, error=text.splitlines()[0][:300])
    finally:
        del x, y
        optimizer.zero_grad(set_to_none=True)
        row["peak_allocated_bytes"] = torch.cuda.max_memory_allocated(device) - held
        row["peak_reserved_bytes"] = torch.cuda.max_memory_reserved(device) - held
        gc.collect()
        torch.cuda.empty_cache()
    return row


def search(try_at, start, limit, resolution, batches):
    """Doubles from `start` until a batch fails (or `limit`), then bisects
    between the largest that fit and the smallest that failed down to
    `resolution`; with `batches`, tries exactly those. Returns the rows."""
    rows = []

    def tried(b):
        row = try_at(b)
        rows.append(row)
        return row["fits"]

    if batches:
        for b in batches:
            tried(b)
        return rows
    fit, fail, b = 0, None, start
    while b <= limit:
        if tried(b):
            fit, b = b, b * 2
        else:
            fail = b
            break
    if fail is None:
        return rows
    while fail - fit > resolution:
        mid = (fit + fail) // 2 // resolution * resolution
        if mid <= fit:
            break
        if tried(mid):
            fit = mid
        else:
            fail = mid
    return rows


SEARCH = {  # start, limit, resolution
    "vgg16": (1024, 65536, 1024),
    "resnet50": (16, 2048, 16),
    "gpt-small": (1, 64, 1),
}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default="vgg16,resnet50,gpt-small")
    p.add_argument("--policies", default="plain,checkpoint,save-on-cpu")
    p.add_argument("--device-memory", type=parse_bytes, help="leave only this much of the device free")
    p.add_argument("--batches", help="try exactly these batches (comma-separated) instead of searching")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--cudnn-benchmark", type=int, default=1,
                   help="1 (default): cuDNN times its algorithms per shape, as Burn autotunes")
    p.add_argument("--json")
    args = p.parse_args()

    device = torch.device("cuda")
    torch.backends.cudnn.benchmark = bool(args.cudnn_benchmark)
    torch.cuda.init()
    torch.empty(1, device=device)  # the context, before its free memory is read
    free, total = torch.cuda.mem_get_info(device)
    hold, held = None, 0
    if args.device_memory is not None:
        if free < args.device_memory:
            sys.exit(f"cannot leave {args.device_memory} bytes: only {free} of {total} are free")
        hold = torch.empty(free - args.device_memory, dtype=torch.uint8, device=device)
        held = torch.cuda.memory_allocated(device)
    result = {
        "device": torch.cuda.get_device_name(device),
        "torch": torch.__version__,
        "cudnn": torch.backends.cudnn.version(),
        "cudnn_benchmark": bool(args.cudnn_benchmark),
        "tf32": {"matmul": torch.backends.cuda.matmul.allow_tf32, "cudnn": torch.backends.cudnn.allow_tf32},
        "device_total_bytes": total,
        "device_memory_cap_bytes": args.device_memory,
        "held_bytes": held,
        "warmup_steps": args.warmup,
        "timed_steps": args.steps,
        "rows": [],
    }
    print(f"# {result['device']}, torch {result['torch']}, cap {args.device_memory} B (held {held} B)", flush=True)
    batches = [int(b) for b in args.batches.split(",")] if args.batches else None

    def save():
        if args.json:
            with open(args.json, "w") as f:
                json.dump(result, f, indent=1)

    for name in args.models.split(","):
        for policy in args.policies.split(","):
            torch.manual_seed(0)
            try:
                model = make_model(name).to(device)
                optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-5)
            except (torch.OutOfMemoryError, RuntimeError) as err:
                row = {"model": name, "policy": policy, "fits": False, "error": str(err).splitlines()[0][:300]}
                result["rows"].append(row)
                print(row, flush=True)
                continue

            host_per_sample = [None]

            def try_at(b):
                row = try_batch(name, model, optimizer, policy, b, args, device, held, host_per_sample[0])
                if policy == "save-on-cpu" and row["fits"]:
                    row["peak_host_rss_bytes"] = peak_rss_bytes()
                    host_per_sample[0] = row["peak_host_rss_bytes"] / b
                result["rows"].append(row)
                save()
                shown = f"{row['samples_per_s']:.1f} samples/s" if row["fits"] else row["error"]
                print(f"{name} {policy} b{b}: {'fits' if row['fits'] else 'does not fit'}, {shown}, "
                      f"peak {row['peak_allocated_bytes'] / 2**30:.2f} GiB allocated, "
                      f"{row['peak_reserved_bytes'] / 2**30:.2f} GiB reserved", flush=True)
                return row

            start, limit, resolution = SEARCH[name]
            rows = search(try_at, start, limit, resolution, batches)
            fitting = [r for r in rows if r["fits"]]
            if fitting:
                best = max(fitting, key=lambda r: r["batch"])
                print(f"== {name} {policy}: largest batch {best['batch']} at {best['samples_per_s']:.1f} samples/s", flush=True)
            else:
                print(f"== {name} {policy}: no batch fits", flush=True)
            del model, optimizer
            gc.collect()
            torch.cuda.empty_cache()
    save()
    del hold


if __name__ == "__main__":
    main()
