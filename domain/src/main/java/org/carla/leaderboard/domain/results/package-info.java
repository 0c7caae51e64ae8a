/**
 * The Leaderboard 2.0 results, once for everyone: the checkpoint model ({@link CheckpointFile}, read and written by
 * {@link ResultsJson} in the Leaderboard's own JSON text), the merge of the agents' partial checkpoints
 * ({@link CheckpointMerge}), the global statistics ({@link GlobalStatistics}, number for number with the Leaderboard's
 * Python: {@link PythonFloat}), the validation ({@link CheckpointValidation}) and EvalAI's three files
 * ({@link EvalAiFiles}). The evaluator stand-in writes its checkpoints with it; logcopy merges with it; the results
 * relay reads the same model and {@link EvalAiFiles#snakeCaseAccuracies(String)}.
 */
package org.carla.leaderboard.domain.results;
