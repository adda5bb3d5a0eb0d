KPD div.unregister_failed_kretprobe register.rc=-22
KPD div.unregister_failed_kretprobe unregister_shell=killed
KPD div.unregister_failed_kretprobe list=(empty)
