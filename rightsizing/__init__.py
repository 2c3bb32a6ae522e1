"""Right-sizing from measured use (``gpufleet rightsize``): GPU samples read as streams
(``nvidia_smi_csv``, ``dcgm_text``, ``cloudwatch_gpu``) into per-workload histograms
(``usage_stats``), judged enough or not (``judgement``), turned into changes to the spec
priced by the planner (``recommend``) and written back keeping the user's layout
(``spec_edit``)."""
