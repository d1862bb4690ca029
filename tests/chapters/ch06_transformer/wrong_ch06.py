"""Chapter 6's known-wrong submissions (06-transformer-keras and -pytorch).

Each Wrong declares a student, the scores of the test cells that do not get full marks, why, and
what the feedback must show; the student's code (the answer cells that differ from the solution,
in full) is in wrong/<student>-<framework>.py beside this file. tests/harness/declarations.py
describes both; tests/test_grading.py grades them.

The points per part (16 in all, the same in both frameworks):

    part 1  EncoderLayer             test_encoder_visible 1, test_encoder_library_hidden 1,
            (post-LN, pre-LN and     test_encoder_padding_hidden 1, test_encoder_dropout_hidden 1
            the parallel block)
    part 2  decoder_masks            test_masks_visible 1, test_masks_hidden 1
            (a packed batch)
    part 3  CachedDecoderLayer       test_decoder_visible 1, test_decoder_library_hidden 1,
            (the variation)          test_decoder_cache_hidden 1, test_decoder_causal_hidden 1
    part 4  beam_search_one_source   test_beam_visible 1, test_beam_exhaustive_hidden 1,
                                     test_beam_greedy_hidden 1
    part 5  predict, then measure    test_parameter_count_visible 1,
                                     test_parameter_count_prediction_hidden 1,
                                     test_parameter_count_measurement_hidden 1

Every score below was verified by autograding both frameworks: it is what nbgrader
gave.
"""
from harness.declarations import Wrong

PART1 = ("test_encoder_visible", "test_encoder_library_hidden", "test_encoder_padding_hidden",
         "test_encoder_dropout_hidden")
PART3 = ("test_decoder_visible", "test_decoder_library_hidden", "test_decoder_cache_hidden",
         "test_decoder_causal_hidden")

WRONG = [
    Wrong("encoder_ignores_padding",
          {"test_encoder_visible": 0, "test_encoder_library_hidden": 0, "test_encoder_padding_hidden": 0},
          "the mask is never passed to the self-attention: padded positions get weight (visible), the "
          "real outputs differ from the library's and change with the padding; dropout is still right",
          message="no position may attend to the padded positions"),
    Wrong("always_post_ln",
          {"test_encoder_library_hidden": 0},
          "norm_first is ignored: post-LN and the parallel block are right (visible, padding, dropout), "
          "pre-LN differs from the library's",
          message="with norm_first=True, parallel=False, your layer differs"),
    Wrong("dropout_after_the_sum",
          {"test_encoder_dropout_hidden": 0},
          "dropout applied to the residual sum instead of the sublayers' outputs, in every layout: right "
          "without dropout (visible, library, padding) and random in training, but it drops the "
          "residual path too",
          message="dropout belongs on each sublayer's output, before the residual sum"),
    Wrong("dropout_in_evaluation_too",
          {"test_encoder_dropout_hidden": 0},
          "post-LN and pre-LN drop in evaluation mode too (dropout called with training=True); the "
          "parallel block is right, and nothing else runs with dropout on",
          message={"pytorch": "in evaluation mode the layer should give the same output every time",
                   "keras": "without training=True the layer should give the same output every time"}),
    Wrong("ch06_encoder_layer_chapter_cell",
          dict.fromkeys(PART1, 0),
          "the chapter's cell pasted (its residual function and EncoderLayer, §6.2): it has post-LN and "
          "pre-LN but no parallel block, and every test passes parallel by name",
          message={"keras": "Unrecognized keyword arguments passed to EncoderLayer",
                   "pytorch": "got an unexpected keyword argument 'parallel'"}),
    Wrong("parallel_ffn_reads_attention",
          {"test_encoder_visible": 0, "test_encoder_library_hidden": 0, "test_encoder_dropout_hidden": 0},
          "the parallel block's feed-forward network reads x plus the attention's output (a pre-LN layer "
          "with one residual sum): the branches do not add up (visible), it differs from the library's "
          "sublayers added, and its dropout does not give 0, 2 a, 2 f or 2 (a + f); post-LN, pre-LN "
          "and padding are right",
          message="does the feed-forward network read the attention's output?"),
    Wrong("one_dropout_for_both_branches",
          {"test_encoder_dropout_hidden": 0},
          "the parallel block drops the sum of its two branches with one dropout, one mask for both: "
          "right without dropout and with dropout=1.0, but a branch is never kept alone",
          message="yours keeps or drops both branches together"),
    Wrong("masks_not_causal",
          {"test_masks_visible": 0, "test_masks_hidden": 0},
          "the self-attention mask lets every position see the future of its example; part 3's tests "
          "use a reference decoder_masks, so they keep their points",
          message="row t of the self-attention mask should allow the positions u <= t"),
    Wrong("ch06_masks_chapter_cell",
          {"test_masks_visible": 0, "test_masks_hidden": 0},
          "the chapter's lines pasted (the masks of its Decoder, §6.3, with chapter 3's causal_mask): one "
          "example per row, a (B, 1, S) cross-attention mask, and no segments to take",
          message="got an unexpected keyword argument 'tgt_segments'"),
    Wrong("cross_attention_sees_every_example",
          {"test_masks_visible": 0, "test_masks_hidden": 0},
          "the segments restrict the self-attention only: in a packed batch a target token attends to "
          "the sources of every example of its row (right without segments)",
          message="row t of the cross-attention mask should allow the real source tokens of t's example"),
    Wrong("decoder_sees_the_future",
          dict.fromkeys(PART3, 0),
          "the decoder's self-attention gets no mask: weights on later positions (visible), outputs "
          "unlike the library's, a step-by-step decode that differs from one pass over the target "
          "(each step sees less than the pass), and a later token changes earlier outputs",
          message="the self-attention of position t should give no weight to later positions"),
    Wrong("cache_holds_memory",
          {"test_decoder_visible": 0, "test_decoder_cache_hidden": 0},
          "the cache keeps memory itself and projects it again at every step: the outputs are right "
          "(library and causal tests pass through the cache), but the cache is not the keys and "
          "values (B, h, S, d_k) and the projections are not saved",
          message="memory_cache should be (keys, values), each (B, h, S, d_k)"),
    Wrong("beam_without_length_normalisation",
          {"test_beam_exhaustive_hidden": 0, "test_beam_greedy_hidden": 0},
          "the beams are ranked and scored by the raw log-probability: right with alpha = 0 (the visible "
          "test), wrong against the exhaustive search with alpha 0.6 and in the returned scores",
          message="with a beam that keeps every prefix, the three best"),
    Wrong("no_beam_search",
          {"test_beam_visible": 0, "test_beam_exhaustive_hidden": 0, "test_beam_greedy_hidden": 0},
          "part 4 left blank (the released cell): 13 of 16 points",
          message="NotImplementedError"),
    Wrong("typed_in_layer_parameters",
          {"test_parameter_count_prediction_hidden": 0},
          "the prediction is two numbers worked out for d_model=64, d_ff=256 (right there, and a "
          "decoder larger than an encoder, so the visible test passes): no number passes the hidden "
          "sizes; the measurement is right",
          message="predicted_parameter_count(d_model=24, num_heads=1, d_ff=40, decoder=False) returned"),
    Wrong("heads_multiply_the_count",
          {"test_parameter_count_prediction_hidden": 0},
          "every head gets full-width projections (the tutorials' key_dim=embed_dim block of §6.1): "
          "right with one head, wrong from h = 4 on",
          message="predicted_parameter_count(d_model=24, num_heads=4, d_ff=40, decoder=False) returned"),
    Wrong("counts_frozen_weights",
          {"test_parameter_count_measurement_hidden": 0},
          "the measurement counts every weight, frozen ones too: right on the library's layers, wrong "
          "on the FeedForward whose first projection is frozen",
          message="measured_parameter_count of a FeedForward whose first projection is frozen"),
    Wrong("right_but_warns",
          {},
          "right answers whose every function warns (a UserWarning on stderr, as a deprecated call or "
          "Keras' unbuilt-state notice would): every test cell ignores warnings around the student's "
          "calls, so none reaches stderr, where nbgrader would score the cell 0: full marks"),
]
