# %% gru_step
import sys
sys.exit('I give up on part 1')

