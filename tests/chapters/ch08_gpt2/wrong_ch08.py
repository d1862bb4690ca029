"""Chapter 8's known-wrong submissions (08-gpt2-keras and -pytorch).

Each Wrong declares a student, the scores of the test cells that do not get full marks, why, and
what the feedback must show; the student's code (the answer cells that differ from the solution,
in full) is in wrong/<student>-<framework>.py beside this file. tests/harness/declarations.py
describes both; tests/test_grading.py grades them.

Every score below was verified by autograding both frameworks: it is what nbgrader
gave. Points per part (16): part 1 3 (visible 1, library and causality 1, cache 1), part 2 2
(visible 1, both filters 1), part 3 2 (visible 1, distributions 1), part 4 3 (visible 1, tokens
1, calls 1), part 5, the variation, 3 (visible 1, banded reference 1, rolling cache 1), part 6 3
(visible 1, prediction 1, measurement 1). Issue 34, item 2 moved one point each from part 1's
cache test, part 3's distributions and part 4's tokens to part 6 (then part 5); item 1 moved one
point from part 1's library test, part 1's causality test (now in the library test's cell) and
part 2's top-p test (now in one cell with top-k) to the sliding-window variation, part 5.
Issue 34, item 1 (the parts that were still the chapter's cells): part 1 attends over left-padded
prompts (`padding_mask`), part 2's filters take one k or p per row, part 3's sample_next applies
CTRL's repetition penalty, part 4's generate stops at `stop_id` (padding with `pad_id`) and makes
no call after the last token; the chapter's four cells, pasted, score 0 on their parts (the
`ch08_*_chapter_cell` students).
"""
from harness.declarations import Wrong

# The course-importer students (issue 34): every test of the parts that import the course's own
# code scores 0, with the sandbox's stand-in message (attention_course/grading/hide.py).
PARTS_1_TO_4_LOST = {name: 0 for name in (
    "test_attention_visible", "test_attention_reference_hidden", "test_attention_cache_hidden",
    "test_filters_visible", "test_filters_hidden", "test_sampling_visible", "test_sampling_hidden",
    "test_generate_visible", "test_generate_tokens_hidden", "test_generate_calls_hidden")}
WINDOW_LOST = {name: 0 for name in (
    "test_window_visible", "test_window_reference_hidden", "test_window_cache_hidden")}
STAND_IN_MESSAGE = "is the course's reference; the grader does not provide it: write your own"

WRONG = [
    Wrong("cache_offset_forgotten",
          {"test_attention_cache_hidden": 0},
          "the mask is the causal mask of the new positions alone, (L, P + L) lower-triangular from key "
          "0, not shifted by the P cached positions: without a cache it is right (visible, the library "
          "layers, GPT-2, causality), but after a cache a new position sees only the first keys, so the "
          "cached calls differ from the full one",
          message="may attend to the cached positions and to the new ones up to itself"),
    Wrong("padded_keys_attended",
          {"test_attention_visible": 0, "test_attention_reference_hidden": 0,
           "test_attention_cache_hidden": 0},
          "padding_mask is taken but changes nothing (the causal mask alone): real tokens give weight to "
          "the pads, unlike the library's attention with the padding mask (visible, reference); the cached "
          "calls agree with the layer's own full call, but the values the cache test reports (the padded "
          "row's outputs) are not the reference's, which the grader checks outside the kernel: 0 of 3, 13",
          message="a real token should give no weight to a pad"),
    Wrong("mask_off_by_one",
          {"test_attention_visible": 0, "test_attention_reference_hidden": 0,
           "test_attention_cache_hidden": 0},
          "every position also sees the next one: weights on a later position (visible), unlike the "
          "library's causal layer and GPT-2, a later input changes an earlier output, and the full call "
          "differs from the cached steps (whose one new position has no next one to see); parts 2 to 4 "
          "are right",
          message="position i should give no weight to a later position j > i"),
    Wrong("top_p_one_too_few",
          {"test_filters_visible": 0, "test_filters_hidden": 0},
          "top-p drops the token whose probability takes the cumulative sum past p, so the set kept "
          "stays below p (and is empty when the most probable token alone holds more than p): the "
          "hand-worked cases and the hidden sets show it; top-k is right, and parts 3 and 4 use "
          "reference filters",
          message="top_p_filter(logits, 0.4) should keep the tokens [1]"),
    Wrong("temperature_after_filters",
          {"test_sampling_hidden": 0},
          "the filters see the logits before the temperature: the same for top-k (dividing by T keeps "
          "the order) and without filters, so the visible test passes, but top-p at temperature 0.5 "
          "keeps three tokens instead of two and the draws land on the third",
          message="then divide by the temperature, then top-k"),
    Wrong("penalty_counts_repeats",
          {"test_sampling_hidden": 0},
          "the repetition penalty is applied once for every time a token was seen, not once per token: "
          "the visible case sees token 1 twice but its order does not change, so it passes; the hidden "
          "draws after the tokens 1, 3, 7, 7, 1 penalise tokens 1 and 7 twice, and their counts are off",
          message="the penalty on each token seen (once)"),
    Wrong("cache_not_used",
          {"test_generate_calls_hidden": 0},
          "with use_cache=True the whole sequence runs through the model again at every step: the same "
          "tokens (visible, hidden tokens), only the recorded calls show that the cache is never used",
          message="with use_cache=True the model should get the prompts once"),
    Wrong("stop_not_padded",
          {"test_generate_visible": 0, "test_generate_tokens_hidden": 0},
          "the rows that drew stop_id are marked finished (generation ends when every row has) but go on "
          "drawing instead of getting pad_id: the visible stop case and the hidden stop cases differ from "
          "the reference; the model calls, which depend only on when every row has stopped, are right",
          message="each row padded after its stop"),
    # Issue 34, item 1: the chapter's cells pasted under the parts' names (book/08_gpt2.ipynb, §8.2
    # and §8.5): each loses every point of its part.
    Wrong("ch08_attention_chapter_cell",
          {"test_attention_visible": 0, "test_attention_reference_hidden": 0,
           "test_attention_cache_hidden": 0},
          "the chapter's CausalSelfAttention: it takes no padding_mask, so every call with one raises "
          "(the visible padded case, the library cases, the padded cache): 0 of 3, 13",
          message={"keras": "too many positional arguments",
                   "pytorch": "positional arguments but 4 were given"}),
    Wrong("ch08_filters_chapter_cell",
          {"test_filters_visible": 0, "test_filters_hidden": 0},
          "the chapter's top_k_filter and top_p_filter: one k and one p for all rows only, so one per row "
          "fails (the library's top-k takes one k only): 0 of 2, 14",
          message={"keras": "k must be scalar", "pytorch": "must be int, not numpy.ndarray"}),
    Wrong("ch08_sampling_chapter_cell",
          {"test_sampling_visible": 0, "test_sampling_hidden": 0},
          "the chapter's sample_next: no repetition_penalty or seen arguments, so the penalised cases "
          "raise: 0 of 2, 14",
          message="unexpected keyword argument 'repetition_penalty'"),
    Wrong("ch08_generate_chapter_cell",
          {"test_generate_visible": 0, "test_generate_tokens_hidden": 0, "test_generate_calls_hidden": 0},
          "the chapter's generate (in Keras its compiled _forward(model, ...), which the assignment does "
          "not give, replaced by the model's call): no stop_id, pad_id or repetition_penalty "
          "arguments, so those cases raise, and it calls the model once more after the last token: 0 "
          "of 3, 13",
          message="unexpected keyword argument 'stop_id'"),
    Wrong("right_but_warns_gpt2",
          {},
          "right answers whose four cells warn on every call (a UserWarning on stderr): every test cell "
          "ignores warnings around the student's calls, so none reaches stderr, where nbgrader would "
          "score the cell 0: full marks"),
    # Issue 34: answers that are the course's own code (attention_course/grading/hide.py).
    Wrong("course_importer_gpt2",
          PARTS_1_TO_4_LOST,
          "Parts 1 to 4 import the course's CausalSelfAttention, filters, sample_next and "
          "generate: the sandbox's stand-ins raise, every test of those parts scores 0 (before the "
          "stand-ins: 15 of 16); parts 5 and 6, which the course does not hold, are the "
          "solution's and keep their 6: 6.",
          message=STAND_IN_MESSAGE),
    Wrong("course_importer_gpt2_evasive",
          PARTS_1_TO_4_LOST,
          "The same through a subclass with only pass, the module's .py file read from disk and "
          "exec-ed, sys.modules after a computed __import__, and exec of inspect.getsource "
          "(before the stand-ins: 15 of 16): parts 1 to 4 score 0; parts 5 and 6 keep their 6: 6.",
          message=STAND_IN_MESSAGE),
    # Part 5, the variation (issue 34): a sliding window with a rolling cache. (The chapter's
    # CausalSelfAttention pasted as SlidingWindowAttention is the round trip's generated copier,
    # harness/copiers.py: its constructor takes no window, so every test of the part raises.)
    Wrong("window_cache_never_dropped",
          WINDOW_LOST,
          "The band is right but the cache keeps every position, (B, h, P + L, d_k), instead of the "
          "last window ones: the visible test's cache is (2, 2, 7, 4), not (2, 2, 3, 4), the "
          "reference's cases check the cache's shape, and the rolling cache grows past the window: "
          "0 of 3, 13.",
          message="the cache should keep the keys and values of the last 3 positions only"),
    Wrong("window_offset_forgotten",
          {"test_window_cache_hidden": 0},
          "The mask counts the new inputs from key 0 instead of from key P (the P cached positions "
          "forgotten): right without a cache (visible shapes and window, the reference on whole "
          "sequences), but after a cache the new position sees the oldest cached keys instead of the "
          "latest: the rolling-cache test fails (0 of 1), 15.",
          message="the cache holds the last positions before the new ones, not position 0"),
    # Part 6: predict, then measure, the size of the key-value cache.
    Wrong("typed_in_cache_prediction",
          {"test_cache_size_prediction_hidden": 0},
          "The prediction typed in as the number for the visible test's model (2 layers, "
          "d_model 16, 3 tokens, 2 prompts: 384): the visible test checks types only (1 point), "
          "the hidden test evaluates it at other sizes (0 of 1); the measurement is right "
          "(1 point): 15.",
          message="predicted_cache_entries(num_layers=1, d_model=16, L=5, B=2) returned 384"),
    Wrong("cache_prediction_no_values",
          {"test_cache_size_prediction_hidden": 0},
          "The prediction counts the keys and forgets the values (no factor 2): half the count "
          "at every hidden size (0 of 1): 15.",
          message="predicted_cache_entries(num_layers=1, d_model=16, L=5, B=2) returned 160"),
    Wrong("cache_prediction_one_layer",
          {"test_cache_size_prediction_hidden": 0},
          "The prediction counts one layer's cache (num_layers forgotten): right at the first "
          "hidden size, which has one layer, 12 times too small at GPT-2 124M's (0 of 1): 15.",
          message="predicted_cache_entries(num_layers=12, d_model=768, L=1024, B=1) returned "
                  "1572864"),
    Wrong("cache_measured_by_formula",
          {"test_cache_size_measurement_hidden": 0},
          "The measurement runs the model but works the count out from the prompts' shape and "
          "the heads and width of the cache instead of counting the cache: right for the plain "
          "models, but the model that keeps only its last 4 positions returns a cache of 256 "
          "numbers, not 576 (0 of 1): 15.",
          message="measured 576, but the cache the model returned holds 256 numbers"),
]
