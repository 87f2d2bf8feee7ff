#!/usr/bin/python3
"""Writes the log samples the progress parser's table tests read, with the real tqdm (Debian's
python3-tqdm 4.64.1) configured as each training loop configures it, writing to a file as a pod's
container does (no terminal). Run from this folder: /usr/bin/python3 generate.py"""
import time

from tqdm import tqdm


def capture(name, body):
    # newline="": the carriage returns tqdm redraws with reach the file as they reach a pod's log.
    with open(name, "w", encoding="utf-8", newline="") as out:
        body(out)


def plain_loop(out):
    # for batch in tqdm(loader, desc="train"): the common hand-written loop.
    for _ in tqdm(range(20), desc="train", file=out, mininterval=0, miniters=1):
        time.sleep(0.05)


def hf_trainer(out):
    # transformers.trainer_callback.ProgressCallback: one bar over max_steps, no description,
    # the logs written through it as dicts, an evaluation bar that does not stay.
    bar = tqdm(total=30, dynamic_ncols=True, file=out, mininterval=0, miniters=1)
    for step in range(1, 31):
        time.sleep(0.03)
        bar.update(1)
        if step % 10 == 0:
            logs = {"loss": round(2.3026 - step * 0.05, 4), "grad_norm": 1.7890625,
                    "learning_rate": 5e-05 * (1 - step / 30), "epoch": round(step / 30, 2)}
            bar.write(str(logs), file=out)
        if step == 20:
            ev = tqdm(total=5, leave=False, dynamic_ncols=True, file=out, mininterval=0, miniters=1)
            for _ in range(5):
                time.sleep(0.01)
                ev.update(1)
            ev.close()
            bar.write(str({"eval_loss": 1.2345, "eval_runtime": 0.05, "eval_samples_per_second": 100.0,
                           "eval_steps_per_second": 12.5, "epoch": 0.67}), file=out)
    bar.write(str({"train_runtime": 1.2, "train_samples_per_second": 200.0, "train_steps_per_second": 25.0,
                   "train_loss": 1.7421, "epoch": 1.0}), file=out)
    bar.close()


def lightning(out):
    # lightning.pytorch.callbacks.TQDMProgressBar: "Epoch N" bars over the epoch's batches with the
    # metrics as postfix, Lightning's bar_format, a validation bar that does not stay.
    fmt = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_noinv_fmt}{postfix}]"
    for epoch in range(2):
        bar = tqdm(total=12, desc=f"Epoch {epoch}", bar_format=fmt, file=out, mininterval=0, miniters=1,
                   dynamic_ncols=True, leave=True)
        for i in range(12):
            time.sleep(0.03)
            bar.update(1)
            bar.set_postfix({"v_num": 0, "train_loss": f"{0.693 - epoch * 0.2 - i * 0.01:.3f}"})
        val = tqdm(total=4, desc="Validation DataLoader 0", bar_format=fmt, file=out, mininterval=0,
                   miniters=1, leave=False)
        for _ in range(4):
            time.sleep(0.01)
            val.update(1)
        val.close()
        bar.set_postfix({"v_num": 0, "train_loss": f"{0.573 - epoch * 0.2:.3f}", "val_loss": "0.612"})
        bar.close()


def printed_loops(out):
    # What hand-written loops print: the PyTorch tutorials' "Epoch [e/E], Step [s/S], Loss: x",
    # Keras-style "Epoch e/E", and a step counter with metrics as key=value.
    for epoch in range(1, 3):
        for step in range(100, 301, 100):
            print(f"Epoch [{epoch}/2], Step [{step}/300], Loss: {0.9 / (epoch * step / 100):.4f}", file=out)
    for epoch in range(1, 5):
        print(f"Epoch {epoch}/4", file=out)
    for step in range(250, 1001, 250):
        print(f"step {step}/1000 loss={1.0 / step * 100:.3f} lr=3e-4", file=out)


capture("printed_loops.log", printed_loops)
capture("tqdm_plain.log", plain_loop)
capture("hf_trainer.log", hf_trainer)
capture("lightning_tqdm.log", lightning)
