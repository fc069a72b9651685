"""Example plugins, each runnable as `python -m plugins_sample.NAME [--bus ENDPOINT]`.

* `myplugin`  - MyPlugin, written with the plugin kit (`gates.plugin`): the seeds' tools.
* `raw_gates` - RawPlugin, written on the raw gates only (`broker`), no client.
* `growing`   - GrowingPlugin, which registers more after start, to show re-consent.
"""
