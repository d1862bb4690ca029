"""Chapter 7's known-wrong submissions (07-bert-keras and -pytorch).

Each Wrong declares a student, the scores of the test cells that do not get full marks, why, and
what the feedback must show; the student's code (the answer cells that differ from the solution,
in full) is in wrong/<student>-<framework>.py beside this file. tests/harness/declarations.py
describes both; tests/test_grading.py grades them.

The points per test cell (16 in all; issue 34): part 1, masking with a fixed number of positions
per row and the replacement split as an argument: visible 1, statistics 1, special tokens 1,
labels 1, draws 1; part 2, predict then measure the share of inputs changed: visible 1,
prediction 1, measurement 1; part 3, whole-word masking (the variation): visible 1, words 1,
tokens 1; part 4, embeddings, BERT's and ALBERT's factorised (embed_dim): visible 1, hidden 1;
part 5, classifier pooled [CLS], mean or max: visible 1, logits 1, training 1.

Parts 1, 4 and 5 were the chapter's cells until issue 34's reformulation: the
ch07_*_chapter_cell students paste the chapter's cell (book/07_bert.ipynb) under the asked name,
with only the import that makes it run, and lose every point of parts 1 and 4 and the pooling
tests of part 5.

Every score below was verified by autograding both frameworks: it is what nbgrader
gave.
"""
from harness.declarations import Wrong

# The course-importer students (issue 34): every test of the parts that import the course's own
# code scores 0, with the sandbox's stand-in message (attention_course/grading/hide.py). Parts 2 and 3
# ask for names that the package does not hold: the importers answer them as the solution does.
EVERY_PART_LOST = {name: 0 for name in (
    "test_masking_visible", "test_masking_statistics_hidden", "test_masking_special_hidden",
    "test_masking_labels_hidden", "test_masking_draws_hidden", "test_embeddings_visible",
    "test_embeddings_hidden", "test_classifier_visible", "test_classifier_logits_hidden",
    "test_classifier_training_hidden")}
STAND_IN_MESSAGE = "is the course's reference; the grader does not provide it: write your own"

WRONG = [
    # Part 1, masking with a fixed number of positions per row (issue 34's reformulation).
    Wrong("ch07_mask_tokens_chapter_cell",
          {"test_masking_visible": 0, "test_masking_statistics_hidden": 0, "test_masking_special_hidden": 0,
           "test_masking_labels_hidden": 0, "test_masking_draws_hidden": 0},
          "the chapter's mask_tokens pasted: every token on its own draw and no split argument; the rows "
          "do not have round(mask_rate * n) tokens chosen (visible, statistics, special tokens, labels) and "
          "the draws test's split=... raises: 0 of 5",
          message="not each token on its own draw"),
    Wrong("masks_special_tokens",
          {"test_masking_visible": 0, "test_masking_statistics_hidden": 0, "test_masking_special_hidden": 0,
           "test_masking_labels_hidden": 0},
          "every position may be chosen, [CLS], [SEP] and [PAD] included, and n counts them: the visible "
          "test sees labelled special tokens, the hidden special-token test too, and the rows' counts are "
          "off (statistics, labels); only the draws test, on rows of ordinary ids, passes",
          message="special tokens and padding are never chosen"),
    Wrong("random_80_percent",
          {"test_masking_visible": 0, "test_masking_statistics_hidden": 0},
          "split read in the wrong order: 80% random tokens and 10% [MASK] by default; the visible test "
          "counts about 10% [MASK] instead of 80%, the hidden statistics too; special tokens, labels and "
          "draws are right",
          message="about 80% of the chosen tokens should become [MASK]"),
    Wrong("random_from_whole_vocabulary",
          {"test_masking_special_hidden": 0},
          "the random replacements are drawn from the whole vocabulary, special ids included: invisible "
          "in the visible test and in the statistics, but the hidden special-token test finds [PAD]s and "
          "[CLS]s among the replacements",
          message="random replacements were special tokens"),
    Wrong("split_ignored",
          {"test_masking_visible": 0, "test_masking_statistics_hidden": 0},
          "split is ignored (80/10/10 always): the visible split=(0, 0, 1) masks tokens, the hidden "
          "split=(0.5, 0.2, 0.3) gets 80% [MASK]; the counts per row, labels and draws are right (the draws "
          "test only counts which ids the replacements are)",
          message="with split=(0, 0, 1) every chosen token stays as it was"),
    Wrong("first_positions_chosen",
          {"test_masking_draws_hidden": 0},
          "the k chosen positions of a row are its first k ordinary tokens, not drawn at random: the counts, "
          "the split, the special tokens and the labels are right; the draws test sees positions chosen "
          "always or never instead of half the time",
          message="choose the k positions of a row uniformly at random"),
    # Part 4, BERT's and ALBERT's embeddings (issue 34's reformulation).
    Wrong("ch07_bert_embeddings_chapter_cell",
          {"test_embeddings_visible": 0, "test_embeddings_hidden": 0},
          "the chapter's BertEmbeddings pasted: no embed_dim and no projection; BERT's layer matches "
          "MiniLM, but the visible test finds no projection attribute (projection = None is asked) and the "
          "hidden ALBERT test cannot build the factorised layer: 0 of 2",
          message="and projection = None"),
    Wrong("segment_ids_ignored",
          {"test_embeddings_hidden": 0},
          "every token is embedded as segment 0: shapes, the norm, segment_ids=None and ALBERT's shapes and "
          "parameter count are right (visible), dropout too, but MiniLM's sentence pairs and the random "
          "tables show the missing segment",
          message="your layer differs from"),
    Wrong("albert_norm_after_projection",
          {"test_embeddings_visible": 0, "test_embeddings_hidden": 0},
          "with embed_dim, the projection comes before the layer norm, which is d_model wide: BERT's layer "
          "(embed_dim=None) is right, but the visible parameter count (184, not 176) and the hidden ALBERT "
          "test see the norm in the wrong place",
          message="= 176 parameters"),
    # Part 5, the classifier pooled [CLS], mean or max (issue 34's reformulation).
    Wrong("ch07_bert_classifier_chapter_cell",
          {"test_classifier_visible": 0, "test_classifier_logits_hidden": 0},
          "the chapter's BertClassifier pasted (with the import of dense it needs): pooling=\"max\" falls "
          "back to the pooled [CLS] output, so the visible and hidden max-pooled logits differ; \"cls\", "
          "\"mean\", freezing and dropout are the chapter's and right (1 of 3)",
          message="with pooling=\"max\" the logits should be classifier(dropout(max))"),
    Wrong("max_zeroes_padding",
          {"test_classifier_visible": 0, "test_classifier_logits_hidden": 0},
          "max pooling multiplies the final vectors by the mask: padding becomes 0, which wins every "
          "feature whose real values are all negative (visible and hidden); the other poolings, freezing "
          "and dropout are right",
          message="over the real tokens"),
    Wrong("mean_counts_padding",
          {"test_classifier_visible": 0, "test_classifier_logits_hidden": 0},
          "pooling=\"mean\" averages every position, [PAD]s included: two more [PAD]s change the logits "
          "(visible), and the hidden mean-pooled logits differ; pooling=\"cls\" and \"max\", freezing and "
          "dropout are right",
          message="average over the real tokens only"),
    Wrong("freeze_ignored",
          {"test_classifier_visible": 0, "test_classifier_training_hidden": 0},
          "freeze_bert is ignored: BERT's weights stay trainable (visible) and get gradients (hidden); "
          "the logits of the three poolings are right",
          message="with freeze_bert=True only the classifier"),
    # Part 2, predict then measure (issue 34): a typed-in number and a wrong formula fail the
    # prediction at the hidden parameters; a measurement of the wrong thing fails the range.
    Wrong("typed_in_changed_fraction",
          {"test_changed_fraction_visible": 0, "test_changed_fraction_prediction_hidden": 0},
          "the prediction is a number worked out for mask_rate 0.15 and a large vocabulary (0.135): the "
          "visible test's mask_rate=0 and the hidden parameters show it; the measurement is right",
          message="which is not the share of the ordinary tokens whose id"),
    Wrong("forgets_same_draw",
          {"test_changed_fraction_visible": 0, "test_changed_fraction_prediction_hidden": 0},
          "the formula 0.9 mask_rate forgets that a random replacement can be the token itself: wrong with "
          "one ordinary id (visible) and at the hidden small vocabularies; the measurement is right",
          message="a random replacement is the token itself"),
    Wrong("measures_chosen_not_changed",
          {"test_changed_fraction_visible": 0, "test_changed_fraction_measurement_hidden": 0},
          "the measurement counts the chosen positions (labels), not the changed ones: the stand-in "
          "masking's second column counts (visible), and the hidden measurement lands near mask_rate, far "
          "outside the range; the prediction is right",
          message="the share changed is 1/8"),
    Wrong("measurement_default_rate",
          {"test_changed_fraction_measurement_hidden": 0},
          "the measurement calls the masking without mask_rate (0.15 by default): the visible stand-in "
          "ignores the rate, the hidden case at mask_rate=0.5 measures 0.1275, outside its range",
          message="more than 5 standard errors"),
    # Part 3, whole-word masking (the variation, issue 34).
    Wrong("token_level_words",
          {"test_whole_words_visible": 0, "test_whole_words_hidden": 0},
          "continuation_ids ignored: every token is a word of its own (part 1's masking): words are chosen "
          "in part (visible and hidden); the 80/10/10 split, labels and draws are right",
          message="words were chosen in part"),
    Wrong("one_action_per_word",
          {"test_whole_word_tokens_hidden": 0},
          "one 80/10/10 draw per word, shared by its pieces: the shares are right on average, but two "
          "pieces of one word are both [MASK] 80% of the time instead of 64%",
          message="draw the 80/10/10 action of every token on its own"),
    Wrong("right_but_warns_bert",
          {},
          "right answers whose functions warn on every call (a UserWarning on stderr): every test "
          "cell ignores warnings around the student's calls, so none reaches stderr, where nbgrader "
          "would score the cell 0: full marks"),
    # Issue 34: answers that are the course's own code (attention_course/grading/hide.py).
    Wrong("course_importer_bert",
          EVERY_PART_LOST,
          "Parts 1, 4 and 5 import the course's mask_tokens, BertEmbeddings and BertClassifier: the "
          "sandbox's stand-ins raise, every test of those parts scores 0 (on main: 16); parts 2 and 3 "
          "are the solution's (6 points).",
          message=STAND_IN_MESSAGE),
    Wrong("course_importer_bert_evasive",
          EVERY_PART_LOST,
          "The same through exec of inspect.getsource, sys.modules and a subclass with only pass of "
          "a computed __import__: the sandbox's copy has only stand-ins (on main: 16): 0 for parts 1, 4 "
          "and 5.",
          message=STAND_IN_MESSAGE),
]
