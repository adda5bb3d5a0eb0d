KPD div.reregister_by_addr_offset A.rc=0
KPD div.reregister_by_addr_offset A.at_entry=1
KPD div.reregister_by_addr_offset again.rc=0
KPD div.reregister_by_addr_offset A.moved=1
KPD div.reregister_by_addr_offset list=ADDR k kpd_fr2+0x0 kprobes_diff [DISABLED]
