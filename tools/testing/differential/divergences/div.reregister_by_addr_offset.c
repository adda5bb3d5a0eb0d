KPD div.reregister_by_addr_offset A.rc=0
KPD div.reregister_by_addr_offset A.at_entry=1
KPD div.reregister_by_addr_offset again.rc=0
KPD div.reregister_by_addr_offset A.moved=1
KPD div.reregister_by_addr_offset list=ADDR k kpd_fd+0x4 kprobes_diff [FTRACE]
KPD div.reregister_by_addr_offset list=ADDR k kpd_fr2+0x4 kprobes_diff [DISABLED][FTRACE]
