"""Standard error of a quantity estimated from a time series whose samples are correlated (a
discharge's rate, a drum's surface angle, frame after frame), by batch means: the series cut into
runs of consecutive samples, the quantity estimated in each, the spread of those estimates over
sqrt(runs). Samples correlated over less than a run give the true error (the naive error, which
takes the samples as independent, reads several times low on such series); correlations as long
as a run make it read low too."""
import numpy as np

BLOCKS = 5  # runs per series
MIN_BLOCK = 3  # samples per run at least


def batch_error(n, estimate, naive):
    """The batch-means standard error of `estimate` over n samples (estimate(indices) gives the
    quantity from the samples at those indices), or `naive` where that is larger or the series is
    too short for three runs."""
    blocks = min(BLOCKS, n // MIN_BLOCK)
    if blocks < 3:
        return naive
    values = [estimate(k) for k in np.array_split(np.arange(n), blocks)]
    return max(naive, float(np.std(values, ddof=1) / np.sqrt(blocks)))
