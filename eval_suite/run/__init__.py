"""One evaluation run, from settings to the run directory: the settings (`config`), which instances
(`selection`), which of them this machine runs when the run is sharded (`shards`), which org (`target`),
the parallel resumable runner (`runner`) and each attempt in it (`attempt`), what makes two runs the same
run (`identity`), the run directory's files (`records`), the progress shown while it works (`progress`)
and scoring a saved run again (`rescore`)."""
