"""Spark 3.5 (pyspark, local mode) with Paimon's Spark runtime as a reference engine.

One ``SparkSession`` per test module (the ``spark`` fixture): starting the JVM costs ~15 s, a
query a fraction of a second.  Each test warehouse gets its own Paimon ``SparkCatalog``
(``spark.sql.catalog.<name>`` set at runtime, ``<name>`` = ``whN``); ``Spark.table(wh, ident)``
gives the fully qualified name to use in SQL.

The runtime is ``paimon-spark-3.5`` **0.9.0**: the newest Paimon Spark runtime Maven Central
serves here (``tests/engines/fetch-jars.sh`` downloads it, pinned by SHA-256).  Results come back
as Arrow (``DataFrame._collect_as_arrow``, pyspark 3.5's Arrow collection) and are compared through
``canonical.canonical_lines`` after a cast to the model's Arrow schema.
"""
from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Dict, List, Optional

import pyarrow as pa
import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
PAIMON_SPARK_VERSION = "0.9.0"
SPARK_VERSION = "3.5.9"
JAR = REPO_ROOT / ".cache" / "jars" / f"paimon-spark-3.5-{PAIMON_SPARK_VERSION}.jar"


class Spark:
    def __init__(self) -> None:
        if not JAR.is_file():
            pytest.fail(f"{JAR} is missing: run `bash tests/engines/fetch-jars.sh` (scripts/test.sh does)",
                        pytrace=False)
        import pyspark
        from pyspark.sql import SparkSession

        if pyspark.__version__ != SPARK_VERSION:
            pytest.fail(f"pyspark {pyspark.__version__} is installed, need {SPARK_VERSION}", pytrace=False)
        os.environ.setdefault("PYSPARK_PYTHON", os.sys.executable)
        self.session = (
            SparkSession.builder.master("local[2]")
            .appName("strata-interop")
            .config("spark.jars", str(JAR))
            .config("spark.sql.extensions",
                    "org.apache.paimon.spark.extensions.PaimonSparkSessionExtensions")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.default.parallelism", "2")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.driver.memory", "2g")
            .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
            .getOrCreate()
        )
        self.session.sparkContext.setLogLevel("ERROR")
        self.version = self.session.version
        self._catalogs: Dict[str, str] = {}
        self._n = itertools.count()

    def catalog(self, wh: str) -> str:
        """The Spark catalog name of warehouse ``wh`` (registered on first use)."""
        wh = os.path.abspath(wh)
        name = self._catalogs.get(wh)
        if name is None:
            name = f"wh{next(self._n)}"
            conf = self.session.conf
            conf.set(f"spark.sql.catalog.{name}", "org.apache.paimon.spark.SparkCatalog")
            conf.set(f"spark.sql.catalog.{name}.warehouse", "file:" + wh)
            self._catalogs[wh] = name
        return name

    def table(self, wh: str, ident: str, system: Optional[str] = None) -> str:
        """``catalog.db.`table``` (``system``: a system table such as ``files``)."""
        db, t = ident.split(".", 1)
        name = f"{t}${system}" if system else t
        return f"{self.catalog(wh)}.{db}.`{name}`"

    def run(self, statement: str) -> List[tuple]:
        """Runs a statement; its result rows as tuples."""
        return [tuple(r) for r in self.session.sql(statement).collect()]

    def arrow(self, query: str, schema: Optional[pa.Schema] = None) -> pa.Table:
        """A query's result as Arrow, cast to ``schema`` when given (names must match)."""
        df = self.session.sql(query)
        batches = df._collect_as_arrow()
        if batches:
            table = pa.Table.from_batches(batches)
        else:
            from pyspark.sql.pandas.types import to_arrow_schema
            table = to_arrow_schema(df.schema).empty_table()
        if schema is not None:
            table = table.select(schema.names).cast(schema)
        return table

    def call(self, wh: str, procedure: str, **args) -> List[tuple]:
        """``CALL <catalog>.sys.<procedure>(k => 'v', n => 2, ...)`` (ints unquoted)."""
        rendered = ", ".join(f"{k} => {v}" if isinstance(v, int) else f"{k} => '{v}'"
                             for k, v in args.items())
        return self.run(f"CALL {self.catalog(wh)}.sys.{procedure}({rendered})")

    def files(self, wh: str, ident: str) -> List[dict]:
        """The ``$files`` system table: partition, bucket, level, file name, rows per file."""
        rows = self.session.sql(
            f"SELECT `partition`, bucket, level, file_path, record_count FROM {self.table(wh, ident, 'files')}"
        ).collect()
        return [{"partition": r[0], "bucket": r[1], "level": r[2], "fileName": os.path.basename(r[3]),
                 "rowCount": r[4]} for r in rows]

    def close(self) -> None:
        self.session.stop()


@pytest.fixture(scope="module")
def spark():
    s = Spark()
    yield s
    s.close()
