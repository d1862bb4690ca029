# %% masking
from attention_course.bert_data import mask_tokens

# %% embeddings
from attention_course.torch_bert import BertEmbeddings

# %% classifier
from attention_course.torch_bert import BertClassifier
