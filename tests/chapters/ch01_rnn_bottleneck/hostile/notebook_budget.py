# %% [new cell after greedy_decode]
import time
time.sleep(8)   # a slow experiment, under the per-cell limit

# %% [new cell after greedy_decode]
import time
time.sleep(8)   # a slow experiment, under the per-cell limit

# %% [new cell after greedy_decode]
import time
time.sleep(8)   # a slow experiment, under the per-cell limit

# %% [new cell after greedy_decode]
import time
time.sleep(8)   # a slow experiment, under the per-cell limit
