"""Example plugins, each runnable as `python -m plugins_sample.NAME [--bus ENDPOINT]`.

* `myplugin`  - MyPlugin, written with the plugin kit's decorator API (`gates.plugin.Plugin`): the seeds' tools.
* `client_sample` - ClientSample, the same tools on the C#-shaped `XivMcpClient`, for porting to the game.
* `raw_gates` - RawPlugin, written on the raw gates only (`broker`), no client.
* `growing`   - GrowingPlugin, which registers more after start, to show re-consent.
"""
