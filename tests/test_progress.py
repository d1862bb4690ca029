"""The progress bar: plain tqdm on stderr, one redrawn display in a notebook."""
import IPython.display

from attention_course import progress


class FakeHandle:
    """Stands in for the DisplayHandle that IPython.display.display returns."""

    def __init__(self):
        self.shown = []

    def update(self, obj, raw=False):
        assert raw
        self.shown.append(obj["text/plain"])


def test_not_in_a_notebook_here():
    assert not progress._in_notebook()


def test_progress_bar_writes_to_stderr(capsys):
    bar = progress.progress_bar(total=7, desc="train")
    for _ in range(7):
        bar.update(1)
    bar.close()
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "train" in captured.err
    assert "7/7" in captured.err and "100%" in captured.err
    assert captured.err.endswith("\n")                    # the bar finished its line


def test_display_file_shows_the_latest_line_without_carriage_returns(monkeypatch):
    handle = FakeHandle()
    created = []

    def fake_display(obj, raw=False, display_id=None):
        created.append(obj)
        assert raw and display_id is True
        return handle

    monkeypatch.setattr(IPython.display, "display", fake_display)
    file = progress._DisplayFile()
    file.write("\r  10%|#  | 1/10")
    file.write("\n")                                       # blank lines are ignored
    file.write("\r 100%|###| 10/10\r")
    file.flush()
    assert created == [{"text/plain": ""}]                 # one display, created once
    assert handle.shown == ["10%|#  | 1/10", "100%|###| 10/10"]


def test_progress_bar_in_a_notebook_updates_one_display(monkeypatch, capsys):
    handle = FakeHandle()
    displays = []
    monkeypatch.setattr(IPython.display, "display",
                        lambda obj, raw=False, display_id=None: displays.append(obj) or handle)
    monkeypatch.setattr(progress, "_in_notebook", lambda: True)
    bar = progress.progress_bar(total=10, desc="epoch 1", mininterval=0)
    for _ in range(10):
        bar.update(1)
    bar.set_postfix(loss=0.5)
    bar.close()
    assert len(displays) == 1
    assert handle.shown, "the bar never drew"
    assert not any("\r" in line or "\n" in line for line in handle.shown)
    assert "epoch 1" in handle.shown[-1] and "10/10" in handle.shown[-1]
    assert "loss=0.5" in handle.shown[-1]
    assert capsys.readouterr().err == ""                   # nothing leaked to stderr
