"""Chapter 7's known-wrong submissions (07-bert-keras and -pytorch).

Each Wrong declares a student, the scores of the test cells that do not get full marks, why, and
what the feedback must show; the student's code (the answer cells that differ from the solution,
in full) is in wrong/<student>-<framework>.py beside this file. tests/harness/declarations.py
describes both; tests/test_grading.py grades them.

Every score below was verified by autograding both frameworks: it is what nbgrader
gave.
"""
from harness.declarations import Wrong

# The course-importer students (issue 34): every test of the parts that import the course's own
# code scores 0, with the sandbox's stand-in message (attention_course/grading/hide.py).
EVERY_PART_LOST = {name: 0 for name in (
    "test_masking_visible", "test_masking_statistics_hidden", "test_masking_special_hidden",
    "test_masking_labels_hidden", "test_masking_draws_hidden", "test_embeddings_visible",
    "test_embeddings_pretrained_hidden", "test_embeddings_formula_hidden", "test_embeddings_dropout_hidden",
    "test_classifier_visible", "test_classifier_logits_hidden", "test_classifier_gradients_hidden",
    "test_classifier_dropout_hidden")}
STAND_IN_MESSAGE = "is the course's reference; the grader does not provide it: write your own"

WRONG = [
    Wrong("masks_special_tokens",
          {"test_masking_visible": 0, "test_masking_special_hidden": 0},
          "every position may be chosen, [CLS], [SEP] and [PAD] included: the visible test sees labelled "
          "and masked special tokens, and so does the hidden special-token test; among the ordinary "
          "tokens the statistics, the labels and the draws are right",
          message="special tokens and padding are never chosen"),
    Wrong("random_80_percent",
          {"test_masking_visible": 0, "test_masking_statistics_hidden": 0},
          "the 80/10/10 rule swapped: 80% random tokens and 10% [MASK]; the visible test counts about "
          "10% [MASK] instead of 80%, the hidden statistics too; special tokens, labels and draws are "
          "right",
          message="about 80% of the chosen tokens should become [MASK]"),
    Wrong("random_from_whole_vocabulary",
          {"test_masking_special_hidden": 0},
          "the random replacements are drawn from the whole vocabulary, special ids included: invisible "
          "in the visible test and in the statistics, but the hidden special-token test finds [PAD]s and "
          "[CLS]s among the replacements",
          message="random replacements were special tokens"),
    Wrong("segment_ids_ignored",
          {"test_embeddings_pretrained_hidden": 0, "test_embeddings_formula_hidden": 0},
          "every token is embedded as segment 0: shapes, the norm and segment_ids=None are right "
          "(visible), dropout too, but MiniLM's sentence pairs and the random tables show the missing "
          "segment",
          message="your layer differs from"),
    Wrong("classifier_on_mean",
          {"test_classifier_logits_hidden": 0},
          "the head reads the average of the final vectors, not the pooled [CLS] output: the shapes, the "
          "frozen weights, the gradients and the dropout are right; only the logits differ",
          message="the logits should be classifier(dropout(pooled))"),
    Wrong("freeze_ignored",
          {"test_classifier_visible": 0, "test_classifier_gradients_hidden": 0},
          "freeze_bert is ignored: BERT's weights stay trainable (visible) and get gradients (hidden); "
          "the logits and the dropout are right",
          message="with freeze_bert=True only the classifier"),
    Wrong("right_but_warns_bert",
          {},
          "right answers whose three functions warn on every call (a UserWarning on stderr): every test "
          "cell ignores warnings around the student's calls, so none reaches stderr, where nbgrader "
          "would score the cell 0: full marks"),
    # Issue 34: answers that are the course's own code (attention_course/grading/hide.py).
    Wrong("course_importer_bert",
          EVERY_PART_LOST,
          "Every part imports the course's mask_tokens, BertEmbeddings and BertClassifier: the "
          "sandbox's stand-ins raise, every test scores 0 (on main: 16).",
          message=STAND_IN_MESSAGE),
    Wrong("course_importer_bert_evasive",
          EVERY_PART_LOST,
          "The same through exec of inspect.getsource, sys.modules and a subclass with only pass of "
          "a computed __import__: the sandbox's copy has only stand-ins (on main: 16): 0.",
          message=STAND_IN_MESSAGE),
]
