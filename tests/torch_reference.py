"""Copying the course's PyTorch attention weights into torch.nn's, for reference checks."""
import torch


def copy_into_torch_mha(ours, library: torch.nn.MultiheadAttention) -> None:
    """Our MultiHeadAttention's (or one-head layer's) query/key/value/output weights into
    torch.nn.MultiheadAttention, which stacks the three input projections in one matrix."""
    with torch.no_grad():
        library.in_proj_weight.copy_(torch.cat([ours.query.weight, ours.key.weight,
                                                ours.value.weight]))
        library.in_proj_bias.copy_(torch.cat([ours.query.bias, ours.key.bias, ours.value.bias]))
        library.out_proj.weight.copy_(ours.output_projection.weight)
        library.out_proj.bias.copy_(ours.output_projection.bias)
