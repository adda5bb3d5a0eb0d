KPD div.disarm_all_unopt_queued P.rc=0
KPD div.disarm_all_unopt_queued jump_written=1
KPD div.disarm_all_unopt_queued optimizer_held sysctl_writer=waiting enabled_writer=returned
KPD div.disarm_all_unopt_queued during.text0=int3
KPD div.disarm_all_unopt_queued during.order=P
KPD div.disarm_all_unopt_queued optimizer_run sysctl_writer=returned enabled_writer=returned
KPD div.disarm_all_unopt_queued after.text0=int3
KPD div.disarm_all_unopt_queued after.order=P
KPD div.disarm_all_unopt_queued unregistered.text0=original
KPD div.disarm_all_unopt_queued order=-
KPD div.disarm_all_unopt_queued list=(empty)
