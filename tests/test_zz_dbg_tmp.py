import logging, sys
sys.path.insert(0, "/work/main/tests")
from test_services_assets import *  # noqa

def test_dbg(remote, caplog):
    instance, resources, hub, _ = remote
    caplog.set_level(logging.DEBUG)
    dg.materialize(ASSETS, instance=instance, partition_key=core.MODEL, resources=resources)
    for r in caplog.records:
        m = r.getMessage()
        if "connect_tcp" in m or "HTTP Request" in m or "send_request_headers" in m:
            print("DBG", r.name, m[:300])
