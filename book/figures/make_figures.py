"""Draw the course's architecture diagrams as SVG (no dependencies but Python).

    python book/figures/make_figures.py        # rewrites book/figures/*.svg

Each figure sits on an opaque light card with dark strokes, so it reads the same
in the book's light and dark themes (the theme does not invert images). One
palette for all figures: grey for tokens and plain inputs, blue for encoder
states, orange for decoder states, purple for scores and attention weights,
green for context vectors and outputs of attention, red for the bottleneck.
The symbols are those of book/notation.md.
"""
from __future__ import annotations

import re
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
INK = "#1f2937"
MUTED = "#4b5563"
PALETTE = {  # role: (fill, stroke)
    "token": ("#f3f4f6", "#374151"),
    "encoder": ("#dbeafe", "#1d4ed8"),
    "decoder": ("#ffedd5", "#c2410c"),
    "attention": ("#ede9fe", "#6d28d9"),
    "context": ("#dcfce7", "#15803d"),
    "bottleneck": ("#fee2e2", "#b91c1c"),
}
TEXT_SCALE = 1.2
HEADS = ["#2563eb", "#db2777", "#059669", "#d97706"]  # one colour per head (figure 4)


# ---------------------------------------------------------------------------
# Drawing helpers
# ---------------------------------------------------------------------------

def rich(text: str) -> str:
    """SVG tspans for a label: $...$ is maths (italic letters, _sub and ^sup)."""
    out = []
    for i, part in enumerate(re.split(r"\$", text)):
        if i % 2 == 0:
            out.append(escape(part))
            continue
        pos = 0
        for m in re.finditer(r"([_^])(\{[^}]*\}|.)", part):
            out.append(_math_run(part[pos:m.start()]))
            script = m.group(2).strip("{}")
            dy = "0.35em" if m.group(1) == "_" else "-0.45em"
            back = "-0.35em" if m.group(1) == "_" else "0.45em"
            out.append(f'<tspan dy="{dy}" font-size="72%">{_math_run(script)}</tspan>'
                       f'<tspan dy="{back}">\u200b</tspan>')
            pos = m.end()
        out.append(_math_run(part[pos:]))
    return "".join(out)


def _math_run(text: str) -> str:
    """Single letters italic (variables), words and symbols upright."""
    pieces = re.split(r"([A-Za-z]{3,}|[A-Za-z]|[α-ω])", text)
    return "".join(
        f'<tspan font-style="italic">{escape(p)}</tspan>'
        if re.fullmatch(r"[A-Za-z]|[α-ω]", p) else escape(p)
        for p in pieces if p
    )


class Figure:
    def __init__(self, width: int, height: int, title: str):
        self.width, self.height, self.title = width, height, title
        self.items: list[str] = []

    def add(self, item: str) -> None:
        self.items.append(item)

    def text(self, x, y, label, size=14, anchor="middle", color=INK, weight="normal"):
        size = round(size * TEXT_SCALE, 1)  # the book shows these at about 75% size
        self.add(f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" '
                 f'fill="{color}" font-weight="{weight}" dominant-baseline="middle">'
                 f"{rich(label)}</text>")

    def box(self, cx, cy, w, h, role, label="", size=15, dashed=False, radius=7,
            fill=None, stroke=None, width=1.6):
        f, s = PALETTE[role] if role else ("none", INK)
        f, s = fill or f, stroke or s
        dash = ' stroke-dasharray="5 4"' if dashed else ""
        self.add(f'<rect x="{cx - w / 2}" y="{cy - h / 2}" width="{w}" height="{h}" '
                 f'rx="{radius}" fill="{f}" stroke="{s}" stroke-width="{width}"{dash}/>')
        if label:
            self.text(cx, cy + 1, label, size=size)

    def line(self, points, color=INK, arrow=True, dashed=False, width=1.6, halo=False):
        path = " ".join(f"{x},{y}" for x, y in points)
        dash = ' stroke-dasharray="5 4"' if dashed else ""
        if halo:  # a white gap where the line crosses another
            self.add(f'<polyline points="{path}" fill="none" stroke="#ffffff" '
                     f'stroke-width="{width + 5}"/>')
        marker = f' marker-end="url(#arrow-{color[1:]})"' if arrow else ""
        self.add(f'<polyline points="{path}" fill="none" stroke="{color}" '
                 f'stroke-width="{width}"{dash} stroke-linejoin="round"{marker}/>')

    def matrix(self, x, y, rows, cols, cell, color, shades=None, label="", shape="",
               blocked=None, outline=INK, dashed=False):
        """A grid of cells at top-left (x, y); shades[r][c] in 0..1 tints each cell."""
        for r in range(rows):
            for c in range(cols):
                shade = 0.35 if shades is None else shades[r][c]
                fill = color
                opacity = 0.15 + 0.85 * shade
                if blocked and blocked(r, c):
                    fill, opacity = "#9ca3af", 1.0
                self.add(f'<rect x="{x + c * cell}" y="{y + r * cell}" width="{cell}" '
                         f'height="{cell}" fill="{fill}" fill-opacity="{opacity:.2f}" '
                         f'stroke="#ffffff" stroke-width="1"/>')
        dash = ' stroke-dasharray="5 4"' if dashed else ""
        self.add(f'<rect x="{x}" y="{y}" width="{cols * cell}" height="{rows * cell}" '
                 f'fill="none" stroke="{outline}" stroke-width="1.4"{dash}/>')
        cx = x + cols * cell / 2
        if label:
            self.text(cx, y - 14, label, size=14)
        if shape:
            self.text(cx, y + rows * cell + 15, shape, size=12, color=MUTED)

    def svg(self) -> str:
        colors = sorted({m for m in re.findall(r"url\(#arrow-([0-9a-f]{6})\)",
                                               "".join(self.items))})
        markers = "".join(
            f'<marker id="arrow-{c}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
            f'fill="#{c}"/></marker>'
            for c in colors
        )
        body = "\n".join(self.items)
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.width} {self.height}" '
            f'width="{self.width}" height="{self.height}" role="img" '
            f'font-family="{FONT}">\n<title>{escape(self.title)}</title>\n'
            f"<defs>{markers}</defs>\n"
            f'<rect x="1" y="1" width="{self.width - 2}" height="{self.height - 2}" rx="12" '
            f'fill="#ffffff" stroke="#d1d5db" stroke-width="1.5"/>\n{body}\n</svg>\n'
        )


# ---------------------------------------------------------------------------
# Figure 1: the encoder-decoder and its bottleneck (chapter 1)
# ---------------------------------------------------------------------------

def encoder_decoder() -> Figure:
    fig = Figure(940, 380, "RNN encoder-decoder: the whole source passes through one "
                 "context vector c, fed to every decoder step (Cho et al., 2014)")
    enc_stroke = PALETTE["encoder"][1]
    dec_stroke = PALETTE["decoder"][1]
    red = PALETTE["bottleneck"][1]
    y_out, y_state, y_in, y_bus = 62, 170, 270, 338
    fig.text(200, 24, "encoder: reads the source", size=15, weight="bold", color=enc_stroke)
    fig.text(715, 24, "decoder: writes the target", size=15, weight="bold", color=dec_stroke)

    enc = [(60, "1"), (145, "2"), (230, "3"), (350, "S")]
    for i, (x, j) in enumerate(enc):
        fig.box(x, y_in, 52, 34, "token", f"$x_{j}$")
        fig.box(x, y_state, 58, 40, "encoder", f"$h_{j}$")
        fig.line([(x, y_in - 17), (x, y_state + 22)], enc_stroke)
        if i:
            prev = enc[i - 1][0]
            if j == "S":
                fig.line([(prev + 29, y_state), (prev + 44, y_state)], enc_stroke, arrow=False)
                fig.text(290, y_state, "…", size=18)
                fig.text(290, y_in, "…", size=18)
                fig.line([(306, y_state), (x - 31, y_state)], enc_stroke)
            else:
                fig.line([(prev + 29, y_state), (x - 31, y_state)], enc_stroke)

    # the bottleneck
    cx = 462
    fig.box(cx, y_state, 64, 48, "bottleneck", "$c$", size=20, width=2.6)
    fig.line([(379, y_state), (cx - 34, y_state)], red, width=2.2)
    fig.text(cx, y_state - 56, "context vector", size=13, color=red, weight="bold")
    fig.text(cx, y_state - 36, "$c$ = $h_S$: fixed size", size=12, color=red)
    fig.text(cx, y_state + 40, "the bottleneck:", size=12, color=red)
    fig.text(cx, y_state + 55, "all of $x_1$ … $x_S$", size=12, color=red)

    dec = [(575, "1", "0"), (670, "2", "1"), (765, "3", "2"), (895, "T", "T-1")]
    fig.line([(cx + 34, y_state), (dec[0][0] - 33, y_state)], red, width=2.2)
    fig.text((cx + dec[0][0]) / 2 + 4, y_state - 12, "$s_0$", size=12, color=red)
    for i, (x, t, prev_t) in enumerate(dec):
        fig.box(x, y_out, 48, 34, "token", f"$y_{t}$")
        fig.box(x, y_state, 62, 40, "decoder", f"$s_{t}$")
        fig.line([(x, y_state - 21), (x, y_out + 18)], dec_stroke)
        # input of step t: the previous output token and c
        label = "<bos>" if prev_t == "0" else f"$y_{{{prev_t}}}$"
        fig.box(x - 14, y_in, 50, 34, "token", label, size=12 if prev_t == "0" else 14)
        fig.box(x + 25, y_in, 26, 34, "bottleneck", "$c$", size=14)
        fig.line([(x, y_in - 17), (x, y_state + 22)], dec_stroke)
        fig.line([(x + 25, y_bus), (x + 25, y_in + 18)], red, dashed=True)
        if i:
            prev = dec[i - 1][0]
            if t == "T":
                fig.line([(prev + 31, y_state), (prev + 50, y_state)], dec_stroke, arrow=False)
                fig.text(prev + 65, y_state, "…", size=18)
                fig.text(prev + 65, y_out, "…", size=18)
                fig.text(prev + 65, y_in, "…", size=18)
                fig.line([(prev + 80, y_state), (x - 32, y_state)], dec_stroke)
            else:
                fig.line([(prev + 31, y_state), (x - 32, y_state)], dec_stroke)
    fig.line([(cx, y_state + 66), (cx, y_bus), (dec[-1][0] + 25, y_bus)], red, arrow=False,
             dashed=True)
    fig.text(715, y_bus + 22 - 10, "the same $c$ at every step", size=12, color=red)
    return fig


# ---------------------------------------------------------------------------
# Figure 2: one decoder step with attention (chapter 2)
# ---------------------------------------------------------------------------

def attention_step() -> Figure:
    fig = Figure(980, 390, "One decoder step with attention: score every encoder state, "
                 "softmax, weighted sum, update the decoder state")
    enc = PALETTE["encoder"][1]
    dec = PALETTE["decoder"][1]
    att = PALETTE["attention"][1]
    ctx = PALETTE["context"][1]
    rows = [(110, "1", 0.08), (160, "2", 0.70), (210, "3", 0.14), (300, "S", 0.03)]
    fig.box(75, 45, 70, 38, "decoder", "$s_{t-1}$")
    fig.text(75, 78, "query", size=12, color=MUTED)
    # s_{t-1} goes to every score (a vertical line behind the score boxes) ...
    fig.line([(110, 45), (250, 45), (250, 300)], dec, arrow=False, dashed=True)
    # ... and to the new state (along the top)
    fig.line([(75, 26), (75, 14), (930, 14), (930, 178)], dec)
    for y, j, weight in rows:
        fig.box(75, y, 58, 34, "encoder", f"$h_{j}$")
        fig.line([(104, y), (215, y)], enc)
        fig.box(250, y, 68, 34, "attention", f"$e_{{t,{j}}}$")
        fig.line([(284, y), (342, y)], att)
        fig.line([(399, y), (422, y)], att)
        fig.text(428, y, f"$α_{{t,{j}}}$", size=14, anchor="start")
        # the weight as a bar, its length the weight
        fig.add(f'<rect x="472" y="{y - 9}" width="{6 + 90 * weight:.1f}" height="18" '
                f'fill="{att}" fill-opacity="0.75" rx="3"/>')
        fig.line([(574, y), (596, y)], att)
        # the weighted state, shaded by its weight
        fig.add(f'<rect x="600" y="{y - 17}" width="76" height="34" rx="7" '
                f'fill="{PALETTE["encoder"][0]}" stroke="{enc}" stroke-width="1.6"/>')
        fig.add(f'<rect x="600" y="{y - 17}" width="76" height="34" rx="7" fill="{enc}" '
                f'fill-opacity="{0.1 + 0.6 * weight:.2f}"/>')
        fig.text(638, y + 1, f"$α_{{t,{j}}}$ $h_{j}$", size=14)
        fig.line([(678, y), (714, 205)], enc, arrow=False)
    for x in (75, 450, 638):
        fig.text(x, 256, "⋮", size=18)
    fig.text(250, 366, "score $e_{t,j}$ = $v^⊤$tanh($W s_{t-1}$ + $U h_j$)", size=12,
             color=att)
    fig.text(75, 342, "encoder states", size=12, color=enc)
    # softmax over the source positions
    fig.box(370, 205, 54, 230, "attention", "", radius=10)
    fig.add(f'<text x="370" y="205" font-size="15" fill="{INK}" text-anchor="middle" '
            f'dominant-baseline="middle" transform="rotate(-90 370 205)">softmax over j</text>')
    fig.text(480, 342, "weights: ≥ 0, sum to 1", size=12, color=att)
    fig.text(650, 366, "weighted states", size=12, color=enc)
    # weighted sum -> context -> new state -> prediction
    fig.add(f'<circle cx="732" cy="205" r="18" fill="#ffffff" stroke="{INK}" '
            f'stroke-width="1.6"/>')
    fig.text(732, 206, "Σ", size=18)
    fig.box(805, 205, 58, 40, "context", "$c_t$", size=16)
    fig.line([(750, 205), (774, 205)], INK)
    fig.box(915, 205, 66, 46, "decoder", "$s_t$", size=16)
    fig.line([(835, 205), (880, 205)], ctx)
    fig.box(915, 312, 58, 34, "token", "$y_{t-1}$")
    fig.line([(915, 295), (915, 230)], dec)
    fig.box(862, 90, 58, 34, "token", "$y_t$")
    fig.line([(902, 181), (874, 109)], dec)
    fig.line([(815, 184), (852, 109)], ctx)
    fig.text(805, 240, "context", size=12, color=ctx)
    fig.text(862, 55, "predict", size=12, color=MUTED)
    return fig


# ---------------------------------------------------------------------------
# Figure 3: queries, keys, values and scaled dot-product attention (chapter 3)
# ---------------------------------------------------------------------------

def _pattern(rows, cols, seed):
    """Deterministic pseudo-random shades in 0..1 (no NumPy needed)."""
    values, state = [], seed
    for _ in range(rows):
        row = []
        for _ in range(cols):
            state = (1103515245 * state + 12345) % 2**31
            row.append((state % 1000) / 1000)
        values.append(row)
    return values


def _softmax_rows(values, blocked=None):
    import math
    out = []
    for r, row in enumerate(values):
        exps = [0.0 if blocked and blocked(r, c) else math.exp(4 * v) for c, v in enumerate(row)]
        total = sum(exps)
        out.append([e / total for e in exps])
    peak = max(max(r) for r in out)
    return [[v / peak for v in row] for row in out]


def qkv() -> Figure:
    fig = Figure(1000, 420, "Self-attention: X times W_Q, W_K, W_V gives Q, K, V; "
                 "softmax(Q K^T / sqrt(d_k)) with an optional mask gives A; A V is the output")
    att = PALETTE["attention"][1]
    ctx = PALETTE["context"][1]
    cell, L = 14, 5
    # X
    fig.matrix(30, 165, L, 6, cell, "#6b7280", _pattern(L, 6, 1), "$X$", "(L, $d_{model}$)")
    # projections
    ys = {"Q": 50, "K": 165, "V": 280}
    for name, y in ys.items():
        fig.line([(118, 200), (150, 200), (150, y + 35), (222, y + 35)], INK)
        fig.text(187, y + 22, f"× $W_{name}$", size=13)
        fig.matrix(228, y, L, 4, cell, "#6b7280", _pattern(L, 4, ord(name)), f"${name}$",
                   "(L, $d_k$)")
    # scores
    scores = _pattern(L, L, 7)
    fig.line([(288, 85), (330, 85), (330, 128), (372, 128)], INK)
    fig.line([(288, 200), (330, 200), (330, 144), (372, 144)], INK)
    fig.matrix(378, 101, L, L, cell, att, scores, "$E$ = $QK^⊤$ / √$d_k$", "(L, L) scores")
    # mask (optional): causal, shown as grey blocked cells
    causal = lambda r, c: c > r  # noqa: E731
    fig.line([(450, 136), (500, 136)], INK)
    fig.matrix(506, 101, L, L, cell, att, scores, "mask", "optional",
               blocked=causal, dashed=True)
    fig.text(541, 203, "grey = blocked", size=12, color=MUTED)
    fig.text(541, 220, "(here: causal)", size=12, color=MUTED)
    # softmax -> A
    fig.line([(578, 136), (640, 136)], INK)
    fig.text(609, 124, "softmax", size=12)
    fig.text(609, 150, "each row", size=11, color=MUTED)
    fig.matrix(646, 101, L, L, cell, att, _softmax_rows(scores, causal), "$A$",
               "(L, L)", blocked=causal)
    fig.text(681, 203, "rows sum to 1", size=12, color=MUTED)
    # A V -> output
    fig.line([(718, 136), (800, 136), (800, 185)], INK)
    fig.line([(288, 315), (800, 315), (800, 240)], INK)
    fig.add(f'<circle cx="800" cy="212" r="20" fill="#ffffff" stroke="{INK}" '
            f'stroke-width="1.6"/>')
    fig.text(800, 213, "$A V$", size=13)
    fig.line([(821, 212), (862, 212)], INK)
    fig.matrix(868, 177, L, 4, cell, ctx, _pattern(L, 4, 11), "output", "(L, $d_k$)")
    fig.text(500, 400, "row $i$ of $A$: how much query $i$ takes from each key $j$; "
             "shapes for one example (add B in front for a batch)", size=12, color=MUTED)
    return fig


# ---------------------------------------------------------------------------
# Figure 4: multi-head attention (chapter 4)
# ---------------------------------------------------------------------------

def multi_head() -> Figure:
    fig = Figure(1000, 430, "Multi-head attention: project, split the width into h heads "
                 "of d_k = d_model / h, attend in each head, concatenate, project with W_O")
    cell, L, h, dk = 12, 5, 4, 2
    width = h * dk
    head_shades = [_pattern(L, width, 21 + k) for k in range(3)]

    def split_matrix(x, y, label, shape, shades, gap=0):
        for head in range(h):
            cols = [row[head * dk:(head + 1) * dk] for row in shades]
            fig.matrix(x + head * (dk * cell + gap), y, L, dk, cell, HEADS[head], cols)
        if label:
            fig.text(x + (width * cell + (h - 1) * gap) / 2, y - 14, label, size=14)
        if shape:
            fig.text(x + (width * cell + (h - 1) * gap) / 2, y + L * cell + 15, shape,
                     size=12, color=MUTED)

    fig.matrix(30, 180, L, width, cell, "#6b7280", _pattern(L, width, 3), "$X$",
               "(L, $d_{model}$)")
    ys = {"Q": 45, "K": 180, "V": 315}
    for k, (name, y) in enumerate(ys.items()):
        fig.line([(128, 210), (160, 210), (160, y + 30), (232, y + 30)], INK)
        fig.text(196, y + 17, f"× $W_{name}$", size=13)
        split_matrix(238, y, f"${name}$", "", head_shades[k], gap=6)
    fig.text(300, 405, "split: h slices of $d_k$ = $d_{model}$ / h", size=12,
             color=MUTED)
    # heads
    fig.line([(372, 210), (420, 210)], INK, arrow=False)
    fig.line([(420, 80), (420, 320)], INK, arrow=False)
    for head in range(h):
        y = 60 + head * 80
        fig.box(530, y + 20, 170, 52, None, "", fill="#ffffff", stroke=HEADS[head], width=2)
        fig.text(530, y + 10, f"head {head + 1 if head < h - 1 else 'h'}", size=13,
                 color=HEADS[head], weight="bold")
        fig.text(530, y + 30, "softmax($Q_i K_i^⊤$/√$d_k$) $V_i$", size=12)
        fig.line([(420, y + 20), (443, y + 20)], INK)
        # the head's output, (L, d_k), in its colour
        fig.matrix(624, y, L, dk, 8, HEADS[head], _pattern(L, dk, 60 + head))
        fig.line([(642, y + 20), (668, y + 20)], HEADS[head], arrow=False)
    fig.text(560, 405, "all heads at once: (h, L, $d_k$)", size=12, color=MUTED)
    # concatenate, W_O, output
    fig.line([(668, 80), (668, 320)], INK, arrow=False)
    fig.line([(668, 210), (706, 210)], INK)
    split_matrix(712, 180, "concatenate", "(L, h·$d_k$) = (L, $d_{model}$)",
                 _pattern(L, width, 40))
    fig.line([(810, 210), (868, 210)], INK)
    fig.text(838, 196, "× $W_O$", size=13)
    fig.matrix(874, 180, L, width, cell, PALETTE["context"][1], _pattern(L, width, 41),
               "output", "(L, $d_{model}$)")
    return fig


FIGURES = {
    "encoder_decoder.svg": encoder_decoder,
    "attention_step.svg": attention_step,
    "qkv.svg": qkv,
    "multi_head.svg": multi_head,
}


# ---------------------------------------------------------------------------
# Figure 5: PE(p + Δ) as a rotation of PE(p), one per frequency pair (chapter 5)
# ---------------------------------------------------------------------------

def positional_rotation() -> Figure:
    import math

    d_model, p, delta = 16, 2, 3
    fig = Figure(1050, 372, "PE(p + Δ) = R_Δ PE(p): each frequency pair of the sinusoidal "
                 "encoding is a point on a circle, turned by Δ times its frequency")
    fig.text(525, 30, f"$d_{{model}}$ = {d_model}, from position p = {p} to p + Δ = {p + delta}",
             size=14, color=MUTED)
    blue, green, purple = (PALETTE[r][1] for r in ("encoder", "context", "attention"))
    radius = 92
    for n, i in enumerate((0, 1, 2)):
        cx, cy = 175 + 350 * n, 180
        omega = 10000 ** (-2 * i / d_model)
        a, b = p * omega, delta * omega
        fig.add(f'<circle cx="{cx}" cy="{cy}" r="{radius}" fill="none" stroke="#9ca3af" '
                f'stroke-width="1.4"/>')
        fig.line([(cx - radius - 14, cy), (cx + radius + 14, cy)], color=MUTED, arrow=False,
                 width=1)
        fig.line([(cx, cy + radius + 14), (cx, cy - radius - 14)], color=MUTED, arrow=False,
                 width=1)
        fig.text(cx - radius - 18, cy + 4, f"$PE_{{{2 * i}}}$ (sin)", size=11,   # left of the axis
                 anchor="end", color=MUTED)
        fig.text(cx + 8, cy + radius + 8, f"$PE_{{{2 * i + 1}}}$ (cos)", size=11,
                 anchor="start", color=MUTED)

        def point(angle, r=radius):        # x = sin, y = cos: clockwise from the top
            return cx + r * math.sin(angle), cy - r * math.cos(angle)

        arc = [point(a + b * t / 24, radius * 0.62) for t in range(25)]
        fig.line(arc, color=purple, width=2)
        if b > 0.6:                        # in the wedge, between the two radii
            mid = point(a + b / 2, radius * 0.36)
            fig.text(mid[0], mid[1], f"Δ$ω_{i}$", size=12, color=purple)
        else:                              # too narrow: beside the arc, before its start
            start = point(a, radius * 0.62)
            fig.text(start[0] - 18, start[1] + 4, f"Δ$ω_{i}$", size=12, color=purple, anchor="end")
        for angle, color, label in ((a, blue, "p"), (a + b, green, "p + Δ")):
            x, y = point(angle)
            fig.line([(cx, cy), (x, y)], color=color, arrow=False, width=1.8)
            fig.add(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="6" fill="{color}"/>')
            lx, ly = point(angle, radius + 22)
            side = math.sin(angle)
            anchor = "start" if side > 0.3 else "end" if side < -0.3 else "middle"
            fig.text(lx, ly, label, size=13, color=color, weight="bold", anchor=anchor)
        fig.text(cx, 328, f"pair i = {i}: $ω_{i}$ = {omega:.3g}", size=13)
        fig.text(cx, 352, f"turned by Δ$ω_{i}$ = {b:.2f} rad", size=13, color=purple)
    return fig


FIGURES["positional_rotation.svg"] = positional_rotation


# ---------------------------------------------------------------------------
# Figure 6: the whole encoder-decoder Transformer (chapter 6)
# ---------------------------------------------------------------------------

def transformer() -> Figure:
    fig = Figure(860, 640, "The Transformer: N encoder layers (self-attention, feed-forward) "
                 "and N decoder layers (masked self-attention, cross-attention, "
                 "feed-forward), each sublayer inside a residual connection and a layer norm")
    enc_x, dec_x, w = 250, 610, 250

    def sublayer(cx, cy, role, label):
        fig.box(cx, cy, w - 40, 40, role, label, size=14)
        fig.box(cx, cy - 38, w - 40, 26, None, "add & layer norm", size=12,
                fill="#f9fafb", stroke=MUTED, width=1.2)

    # stacks
    fig.box(enc_x, 330, w, 330, None, "", fill="#eff6ff", stroke=PALETTE["encoder"][1],
            dashed=True)
    fig.box(dec_x, 300, w, 420, None, "", fill="#fff7ed", stroke=PALETTE["decoder"][1],
            dashed=True)
    fig.text(enc_x - w / 2 - 14, 330, "N ×", size=15, anchor="end", weight="bold")
    fig.text(dec_x + w / 2 + 14, 300, "× N", size=15, anchor="start", weight="bold")
    fig.text(enc_x, 150, "encoder layer", size=14, color=PALETTE["encoder"][1], weight="bold")
    fig.text(dec_x, 75, "decoder layer", size=14, color=PALETTE["decoder"][1], weight="bold")
    sublayer(enc_x, 420, "attention", "multi-head self-attention")
    sublayer(enc_x, 290, "encoder", "feed-forward")
    fig.line([(enc_x, 470), (enc_x, 442)])
    fig.line([(enc_x, 369), (enc_x, 312)])
    sublayer(dec_x, 440, "attention", "masked self-attention")
    sublayer(dec_x, 320, "attention", "cross-attention")
    sublayer(dec_x, 200, "decoder", "feed-forward")
    fig.line([(dec_x, 505), (dec_x, 462)])
    fig.line([(dec_x, 389), (dec_x, 342)])
    fig.line([(dec_x, 269), (dec_x, 222)])
    # memory into the cross-attention: keys and values
    fig.line([(enc_x, 233), (enc_x, 180), (430, 180), (430, 330), (503, 330)],
             PALETTE["encoder"][1])
    fig.text(440, 300, "keys, values", size=12, color=PALETTE["encoder"][1], anchor="start")
    # inputs
    for cx, label, y in ((enc_x, "source tokens", 600), (dec_x, "<bos> y_1 … y_{t-1}", 600)):
        fig.box(cx, y, 200, 34, "token", label, size=13)
        fig.box(cx, y - 58, 230, 40, None, "embedding × √$d_{model}$ + PE", size=13,
                fill="#ffffff", stroke=INK)
        fig.line([(cx, y - 17), (cx, y - 38)])
    fig.line([(enc_x, 522), (enc_x, 470)], arrow=False)
    fig.line([(dec_x, 522), (dec_x, 505)], arrow=False)
    # outputs
    fig.box(dec_x, 55 - 20, 230, 30, None, "linear (tied) + softmax", size=13,
            fill="#ffffff", stroke=INK)
    fig.line([(dec_x, 150), (dec_x, 52)])
    return fig


FIGURES["transformer.svg"] = transformer


# ---------------------------------------------------------------------------
# Figures 7-9: chapter 8 (GPT-2): the causal mask, the decoder-only block, and
# one Transformer with three masks (Dong et al., 2019)
# ---------------------------------------------------------------------------

def _hatch(fig: Figure, x, y, size, step=9, color="#c3c9d2"):
    """Diagonal hatching inside the square at top-left (x, y): a masked cell."""
    for c in range(step, 2 * size, step):
        x0, y0 = x + max(0, c - size), y + min(c, size)
        x1, y1 = x + min(c, size), y + max(0, c - size)
        fig.add(f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="{color}" '
                f'stroke-width="1.2"/>')


def causal_mask() -> Figure:
    tokens = ["robot", "must", "obey", "orders"]
    weights = [[1.00], [0.48, 0.52], [0.31, 0.28, 0.41], [0.25, 0.19, 0.26, 0.30]]
    fig = Figure(690, 550, "The causal (look-ahead) mask on \"robot must obey orders\": "
                 "each query attends to itself and the tokens before it (weights in each "
                 "row sum to 1); the future keys above the diagonal are masked, their "
                 "scores set to minus infinity before the softmax, so their weights are 0")
    att = PALETTE["attention"][1]
    x0, y0, cell = 250, 130, 76
    grid = cell * len(tokens)
    fig.text(x0 + grid / 2, 44, "keys →", size=15, weight="bold")
    fig.text(x0 + grid / 2, 66, "the tokens a query may look at", size=12, color=MUTED)
    fig.text(150, 78, "queries ↓", size=15, weight="bold")
    fig.text(150, 100, "the token being processed", size=11, color=MUTED)
    for i, token in enumerate(tokens):
        cx, cy = x0 + (i + 0.5) * cell, y0 + (i + 0.5) * cell
        fig.box(cx, y0 - 22, cell - 10, 30, "token", token, size=13)
        fig.box(150, cy, 96, 34, "token", token, size=14)
    for r in range(len(tokens)):
        for c in range(len(tokens)):
            x, y = x0 + c * cell, y0 + r * cell
            if c > r:   # the future: masked
                fig.add(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" '
                        f'fill="#e5e7eb" stroke="#ffffff" stroke-width="1"/>')
                _hatch(fig, x, y, cell)
                fig.text(x + cell / 2, y + cell / 2, "−∞", size=14, color=MUTED)
                continue
            w = weights[r][c]
            fig.add(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{att}" '
                    f'fill-opacity="{0.12 + 0.88 * w:.2f}" stroke="#ffffff" stroke-width="1"/>')
            fig.text(x + cell / 2, y + cell / 2 + 1, f"{w:.2f}", size=15,
                     color="#ffffff" if w > 0.6 else INK)
    fig.add(f'<rect x="{x0}" y="{y0}" width="{grid}" height="{grid}" fill="none" '
            f'stroke="{INK}" stroke-width="1.4"/>')
    fig.text(x0 + grid + 62, y0 - 22, "row sum", size=12, color=MUTED)
    for r, row in enumerate(weights):
        assert abs(sum(row) - 1) < 1e-9, row
        fig.text(x0 + grid + 62, y0 + (r + 0.5) * cell, f"{sum(row):.2f}", size=14,
                 color=att)
    # legend
    ly = y0 + grid + 42
    fig.add(f'<rect x="{x0 - 190}" y="{ly - 11}" width="22" height="22" fill="{att}" '
            f'fill-opacity="0.6"/>')
    fig.text(x0 - 160, ly, "attention weight: softmax of the scores in the row", size=12,
             anchor="start")
    fig.add(f'<rect x="{x0 - 190}" y="{ly + 21}" width="22" height="22" fill="#e5e7eb" '
            f'stroke="#c3c9d2"/>')
    _hatch(fig, x0 - 190, ly + 21, 22, step=7)
    fig.text(x0 - 160, ly + 32, "masked future key: score set to −∞ before the softmax, "
             "so its weight is 0", size=12, anchor="start")
    return fig


FIGURES["causal_mask.svg"] = causal_mask


def decoder_only() -> Figure:
    fig = Figure(1000, 760, "Left, chapter 6's Transformer decoder layer (post-LN): masked "
                 "self-attention, cross-attention to the encoder and feed-forward, each "
                 "followed by add & layer norm. Right, GPT-2's block (pre-LN): layer norm, "
                 "causal self-attention, add; layer norm, feed-forward with GELU, add. "
                 "The cross-attention is gone (there is no encoder); N blocks sit between "
                 "token plus learned position embeddings and a final layer norm, and the "
                 "logits reuse the token embedding matrix (weight tying)")
    dec = PALETTE["decoder"][1]
    enc = PALETTE["encoder"][1]
    gone = "#9ca3af"
    lx, rx, w, bw = 250, 740, 250, 200        # panel centres, container and box widths
    skip = bw / 2 + 12                       # residual lines run this far right of centre
    fig.text(lx, 28, "Transformer decoder layer (chapter 6)", size=15, weight="bold",
             color=dec)
    fig.text(lx, 52, "post-LN: LayerNorm(x + sublayer(x))", size=12, color=MUTED)
    fig.text(rx, 28, "GPT-2: decoder-only block", size=15, weight="bold", color=dec)
    fig.text(rx, 52, "pre-LN: x + sublayer(LayerNorm(x))", size=12, color=MUTED)

    def norm(cx, cy, label, removed=False):
        fig.box(cx, cy, bw, 26, None, label, size=12, fill="#f9fafb",
                stroke=gone if removed else MUTED, width=1.2, dashed=removed)

    # --- left: chapter 6's decoder layer, post-LN ---------------------------
    fig.box(lx, 390, w, 360, None, "", fill="#fff7ed", stroke=dec, dashed=True)
    fig.text(lx - w / 2 - 14, 290, "N ×", size=15, anchor="end", weight="bold")
    layers = [(515, "attention", "masked self-attention"), (405, None, "cross-attention"),
              (295, "decoder", "feed-forward")]
    fig.line([(lx, 577), (lx, 537)])
    for k, (cy, role, label) in enumerate(layers):
        removed = role is None
        if removed:
            fig.box(lx, cy, bw, 40, None, "", fill="#f9fafb", stroke=gone, dashed=True)
            fig.text(lx, cy + 1, label, size=14, color=MUTED)
            fig.line([(lx - 70, cy + 1), (lx + 70, cy + 1)], MUTED, arrow=False, width=1.8)
        else:
            fig.box(lx, cy, bw, 40, role, label, size=14)
        norm(lx, cy - 38, "add & layer norm", removed)
        fig.line([(lx, cy + 33), (lx + skip, cy + 33), (lx + skip, cy - 38),
                  (lx + bw / 2 + 1, cy - 38)], gone if removed else INK, width=1.3,
                 dashed=removed)
        fig.line([(lx, cy - 20), (lx, cy - 24)], arrow=False)
        if k + 1 < len(layers):
            fig.line([(lx, cy - 51), (lx, layers[k + 1][0] + 22)])
    fig.line([(lx, 295 - 51), (lx, 167)])
    # keys and values from the encoder: gone in GPT-2
    fig.line([(14, 405), (lx - bw / 2 - 2, 405)], enc, dashed=True)
    fig.text(18, 370, "keys, values", size=12, color=enc, anchor="start")
    fig.text(18, 388, "from the encoder", size=12, color=enc, anchor="start")
    fig.text(lx + w / 2 + 16, 396, "removed in GPT-2:", size=12, color=MUTED,
             anchor="start", weight="bold")
    fig.text(lx + w / 2 + 16, 414, "there is no encoder", size=12, color=MUTED,
             anchor="start")
    fig.box(lx, 150, 230, 32, None, "linear (tied) + softmax", size=13, fill="#ffffff",
            stroke=INK)
    fig.box(lx, 600, 250, 40, None, "embedding × √$d_{model}$ + PE", size=13,
            fill="#ffffff", stroke=INK)
    fig.text(lx, 632, "sinusoidal positions (chapter 5)", size=11, color=MUTED)
    fig.box(lx, 680, 210, 34, "token", "<bos> $y_1$ … $y_{t-1}$", size=13)
    fig.line([(lx, 663), (lx, 622)])

    # --- right: GPT-2's block, pre-LN ----------------------------------------
    fig.box(rx, 397, w, 350, None, "", fill="#fff7ed", stroke=dec, dashed=True)
    fig.text(rx + w / 2 + 14, 396, "× N", size=15, anchor="start", weight="bold")
    fig.text(rx + w / 2 + 14, 418, "blocks", size=13, anchor="start")
    sub = [(535, "attention", "causal self-attention"), (370, "decoder", "feed-forward (GELU)")]
    fig.line([(rx, 578), (rx, 550)])
    for k, (ny, role, label) in enumerate(sub):
        norm(rx, ny, "layer norm")
        fig.line([(rx, ny - 13), (rx, ny - 38)])
        fig.box(rx, ny - 60, bw, 40, role, label, size=14)
        plus = ny - 115
        fig.line([(rx, ny - 80), (rx, plus + 14)])
        fig.add(f'<circle cx="{rx}" cy="{plus}" r="12" fill="#ffffff" stroke="{INK}" '
                f'stroke-width="1.6"/>')
        fig.text(rx, plus + 1, "+", size=15)
        fig.line([(rx, ny + 24), (rx + skip, ny + 24), (rx + skip, plus), (rx + 14, plus)],
                 INK, width=1.3)
        if k == 0:
            fig.line([(rx, plus - 12), (rx, sub[1][0] + 15)])
    fig.line([(rx, 255 - 12), (rx, 210)])
    norm(rx, 195, "final layer norm")
    fig.line([(rx, 182), (rx, 168)])
    fig.box(rx, 150, bw, 32, None, "linear: × $W_E^⊤$ (tied)", size=13, fill="#ffffff",
            stroke=INK)
    fig.line([(rx, 134), (rx, 108)])
    fig.text(rx, 94, "logits (L, V) → softmax", size=13)
    # the stack's input: token and learned position embeddings
    fig.add(f'<circle cx="{rx}" cy="{590}" r="12" fill="#ffffff" stroke="{INK}" '
            f'stroke-width="1.6"/>')
    fig.text(rx, 591, "+", size=15)
    tx, px = 640, 860
    fig.box(tx, 640, 180, 36, None, "token embedding $W_E$", size=13, fill="#ffffff",
            stroke=INK)
    fig.box(px, 640, 236, 36, None, "learned position embedding", size=13, fill="#ffffff",
            stroke=INK)
    fig.line([(tx, 622), (tx, 590), (rx - 14, 590)])
    fig.line([(px, 622), (px, 590), (rx + 14, 590)])
    fig.box(tx, 710, 150, 34, "token", "token ids", size=13)
    fig.box(px, 710, 170, 34, "token", "positions 0 … L−1", size=13)
    fig.line([(tx, 693), (tx, 660)])
    fig.line([(px, 693), (px, 660)])
    # weight tying: the output layer is the token embedding matrix, transposed
    fig.line([(tx - 83, 640), (548, 640), (548, 150), (rx - bw / 2 - 2, 150)], MUTED,
             dashed=True, width=1.4)
    fig.text(540, 200, "weight tying:", size=12, color=MUTED, anchor="end", weight="bold")
    fig.text(540, 218, "the same matrix $W_E$", size=12, color=MUTED, anchor="end")
    return fig


FIGURES["decoder_only.svg"] = decoder_only


def three_masks() -> Figure:
    n, split, cell = 6, 3, 30
    fig = Figure(1000, 480, "One Transformer, three masks (Dong et al., 2019): which keys "
                 "each query may attend to in a 6-token sequence. (a) Encoder, as BERT: "
                 "bidirectional, every query sees every key. (b) Decoder, as GPT: causal, "
                 "query i sees keys 1 to i. (c) Prefix LM, as UniLM's sequence-to-sequence "
                 "mask: the 3 source tokens see the whole source, the 3 target tokens see "
                 "the source and the earlier targets")
    att = PALETTE["attention"][1]
    enc, dec = PALETTE["encoder"][1], PALETTE["decoder"][1]
    fig.text(500, 30, "one Transformer, three masks", size=16, weight="bold")
    panels = [
        ("(a) bidirectional", "encoder: BERT", lambda q, k: True,
         ["every query sees every key", "(no mask)"]),
        ("(b) causal", "decoder: GPT, GPT-2", lambda q, k: k <= q,
         ["query $i$ sees keys 1 … $i$", "(the look-ahead mask)"]),
        ("(c) prefix LM", "seq-to-seq: UniLM", lambda q, k: k < split or k <= q,
         ["source: sees the whole source", "target: source + earlier targets"]),
    ]
    y0 = 140
    for p, (title, family, allowed, notes) in enumerate(panels):
        x0 = 95 + 310 * p
        cx = x0 + n * cell / 2
        fig.text(cx, 62, title, size=15, weight="bold")
        fig.text(cx, 84, family, size=13, color=MUTED)
        fig.text(cx, 108, "keys →", size=12)
        fig.text(x0 - 12, 126, "queries ↓", size=12, anchor="end")
        for k in range(n):
            fig.text(x0 + (k + 0.5) * cell, 126, str(k + 1), size=11, color=MUTED)
            fig.text(x0 - 12, y0 + (k + 0.5) * cell, str(k + 1), size=11, color=MUTED)
        for q in range(n):
            for k in range(n):
                fill = (f'fill="{att}" fill-opacity="0.7"' if allowed(q, k)
                        else 'fill="#ffffff"')
                fig.add(f'<rect x="{x0 + k * cell}" y="{y0 + q * cell}" width="{cell}" '
                        f'height="{cell}" {fill} stroke="#d1d5db" stroke-width="1"/>')
        fig.add(f'<rect x="{x0}" y="{y0}" width="{n * cell}" height="{n * cell}" '
                f'fill="none" stroke="{INK}" stroke-width="1.4"/>')
        for i, note in enumerate(notes):
            fig.text(cx, y0 + n * cell + 62 + 20 * i, note, size=12, color=MUTED)
    # (c): the prefix / target split
    x0 = 95 + 620
    edge, end = x0 + split * cell, y0 + n * cell
    fig.add(f'<line x1="{edge}" y1="{y0 - 6}" x2="{edge}" y2="{end + 6}" stroke="{INK}" '
            f'stroke-width="2" stroke-dasharray="5 3"/>')
    fig.add(f'<line x1="{x0 - 6}" y1="{y0 + split * cell}" x2="{x0 + n * cell + 6}" '
            f'y2="{y0 + split * cell}" stroke="{INK}" stroke-width="2" '
            f'stroke-dasharray="5 3"/>')
    for a, b, color, label in ((0, split, enc, "source"), (split, n, dec, "target")):
        # under the columns (keys) ...
        xa, xb = x0 + a * cell + 3, x0 + b * cell - 3
        fig.line([(xa, end + 8), (xa, end + 14), (xb, end + 14), (xb, end + 8)], color,
                 arrow=False, width=2)
        fig.text((xa + xb) / 2, end + 30, label, size=12, color=color, weight="bold")
        # ... and beside the rows (queries)
        ya, yb = y0 + a * cell + 3, y0 + b * cell - 3
        right = x0 + n * cell
        fig.line([(right + 8, ya), (right + 14, ya), (right + 14, yb), (right + 8, yb)],
                 color, arrow=False, width=2)
        fig.text(right + 20, (ya + yb) / 2, label, size=12, color=color, weight="bold",
                 anchor="start")
    fig.text(x0 + split * cell / 2, end + 46, "(the prefix)", size=11, color=enc)
    # legend
    ly = 448
    fig.add(f'<rect x="280" y="{ly - 10}" width="20" height="20" fill="{att}" '
            f'fill-opacity="0.7" stroke="#d1d5db"/>')
    fig.text(308, ly, "True: may attend", size=12, anchor="start")
    fig.add(f'<rect x="500" y="{ly - 10}" width="20" height="20" fill="#ffffff" '
            f'stroke="#9ca3af"/>')
    fig.text(528, ly, "False: blocked (score −∞)", size=12, anchor="start")
    return fig


FIGURES["three_masks.svg"] = three_masks


def main() -> None:
    for name, draw in FIGURES.items():
        (HERE / name).write_text(draw().svg(), encoding="utf-8")
        print("wrote", HERE / name)


if __name__ == "__main__":
    main()
