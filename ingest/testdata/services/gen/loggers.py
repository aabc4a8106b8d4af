"""Writes one request log line per request with structlog and
python-json-logger in their JSON shapes, when each request ends."""
import datetime, logging, sys, time

import structlog
from pythonjsonlogger import jsonlogger

sf = open("structlog.log", "w")
structlog.configure(processors=[structlog.processors.TimeStamper(fmt="iso"),
                                structlog.processors.JSONRenderer()],
                    logger_factory=structlog.WriteLoggerFactory(file=sf))
slog = structlog.get_logger()

h = logging.FileHandler("python-json-logger.log")
h.setFormatter(jsonlogger.JsonFormatter("%(asctime)s %(levelname)s %(message)s", timestamp=True))
plog = logging.getLogger("svc")
plog.addHandler(h)
plog.setLevel(logging.INFO)

for i in range(20):
    start = datetime.datetime.now().astimezone()
    t0 = time.monotonic()
    time.sleep((3 + i % 7) / 1000)
    status = 503 if i % 5 == 4 else 200
    ms = round((time.monotonic() - t0) * 1000, 3)
    slog.info("request", method="GET", path="/work", status=status, duration_ms=ms, start=start.isoformat())
    plog.info("request", extra={"method": "GET", "path": "/work", "status": status, "duration_ms": ms, "start": start.isoformat()})
