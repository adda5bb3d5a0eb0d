KPD div.unregister_failed_kretprobe register.rc=-22
KPD div.unregister_failed_kretprobe unregister_shell_status=137
KPD div.unregister_failed_kretprobe list=(empty)
