"""XIV MCP's retainer tools over the simulated game (module items_retainers).

    get_retainers, get_retainer_inventories   read the game's retainers (no cache: the game is there)
    open_retainer      at a summoning bell ─► AutoRetainer held back (`Bell`) ─► `Game.OpenRetainer`
    close_retainer     `Game.CloseRetainer` ─► AutoRetainer released
    transfer_retainer_items
                       each { item_id, from, to } in order: withdraw the whole count from the source
                       retainer into the bags, entrust it to the target (`Game.RetainerTransfer`,
                       recorded as move_items); stops at the first that fails, which says why

Refusals are the real host's words (`RetainerTools.cs`, `MarketTools.cs`), before anything changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import anyio

from game import Retainer, RetainersReply
from gates.contract import RefusedError

from ._args import ToolArgs, ToolHandler
from ._bell import NOT_AT_BELL, Bell
from ._game_definitions import text_arg
from ._game_tools import GameAccess

__all__ = ["LIST_NOT_OPEN", "MAX_TRANSFERS", "PLAYER", "RetainerTools"]

PLAYER: Final = "player"
MAX_TRANSFERS: Final = 50
LIST_NOT_OPEN: Final = "Open the retainer list at a summoning bell first."


def _parse(index: int, entry: object) -> tuple[int, str, str]:
    """One transfer, checked as the real `Transfer.Parse`: (item_id, from, to)."""
    if not isinstance(entry, dict):
        raise RefusedError(f"Transfer #{index}: must be an object.")
    item = entry.get("item_id")
    if isinstance(item, str) and item.strip().isdigit():
        item = int(item)
    if not isinstance(item, int) or isinstance(item, bool) or item <= 0:
        raise RefusedError(f"Transfer #{index}: 'item_id' is required.")
    ends: list[str] = []
    for key in ("from", "to"):
        value = entry.get(key)
        if not isinstance(value, str) or not value.strip():
            raise RefusedError(f"Transfer #{index}: '{key}' is required.")
        ends.append(value.strip())
    if ends[0].casefold() == ends[1].casefold():
        raise RefusedError(f"Transfer #{index}: from and to are the same.")
    return item, ends[0], ends[1]


class RetainerTools:
    """The handlers of the retainer tools."""

    def __init__(self, game: GameAccess, bell: Bell) -> None:
        self._game = game
        self._bell = bell

    def handlers(self) -> dict[str, ToolHandler]:
        return {
            "get_retainers": self._retainers,
            "get_retainer_inventories": self._inventories,
            "open_retainer": self._open,
            "close_retainer": self._close,
            "transfer_retainer_items": self._transfer,
        }

    async def _status(self) -> RetainersReply:
        await self._game.player()
        return await self._game.call(self._game.client.retainers())

    async def _retainers(self, args: ToolArgs, _: Any) -> list[dict[str, Any]]:
        return [
            {
                "name": r.name,
                "classJob": r.job,
                "level": r.level,
                "gil": r.gil,
                "itemCount": sum(i.count for i in r.items),
                "marketItemCount": len(r.market),
            }
            for r in (await self._status()).retainers
        ]

    async def _inventories(self, args: ToolArgs, _: Any) -> list[dict[str, Any]]:
        wanted, query = text_arg(args, "retainer"), text_arg(args, "query")
        include_market = args.boolean("include_market", True)
        status = await self._status()
        here = await self._game.player()
        names = {i.item_id: i.name for i in await self._game.call(self._game.client.items())}

        def shown(name: str) -> bool:
            return query is None or query.casefold() in name.casefold()

        def described(r: Retainer) -> dict[str, Any]:
            items = [{"item": i.name, "itemId": i.item_id, "quantity": i.count} for i in r.items if shown(i.name)]
            market = [
                {"item": names.get(m.item_id, f"item {m.item_id}"), "quantity": m.quantity, "pricePerUnit": m.price}
                for m in r.market
                if shown(names.get(m.item_id, ""))
            ]
            return {
                "name": r.name,
                "gil": r.gil,
                "itemCount": sum(i.count for i in r.items),
                "items": items,
                "market": market if include_market else None,
            }

        retainers = [
            described(r)
            for r in status.retainers
            if wanted is None or r.name.casefold() == wanted.casefold() or wanted.casefold() in r.name.casefold()
        ]
        return [{"character": f"{here.player.name} @ {here.player.world}", "retainers": retainers}]

    async def _open(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        name = text_arg(args, "retainer")
        if name is None:
            raise RefusedError("'retainer' is required.")
        if not (await self._status()).at_bell:
            raise RefusedError(NOT_AT_BELL)
        await self._bell.acquire()
        await self._game.call(self._game.client.open_retainer(name))
        return {"opened": (await self._status()).open}

    async def _close(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        name = (await self._status()).open
        await self._game.call(self._game.client.close_retainer())
        await self._bell.release("bell closed")
        return {"closed": name}

    async def _transfer(self, args: ToolArgs, _: Any) -> dict[str, Any]:
        listed = args.values.get("transfers")
        if not isinstance(listed, list) or not listed:
            raise RefusedError("'transfers' must be a non-empty array.")
        if len(listed) > MAX_TRANSFERS:
            raise RefusedError(f"At most {MAX_TRANSFERS} transfers per call.")
        transfers = [_parse(i, entry) for i, entry in enumerate(listed)]
        close_when_done = args.boolean("close_when_done", True)
        status = await self._status()
        if not status.at_bell:
            raise RefusedError(LIST_NOT_OPEN)
        await self._bell.acquire()
        results: list[dict[str, Any]] = []
        try:
            for index, (item_id, source, target) in enumerate(transfers):
                result = await self._one(index, item_id, source, target)
                results.append(result)
                if not result["ok"]:
                    break
        finally:
            if close_when_done:
                with anyio.CancelScope(shield=True):
                    await self._game.call(self._game.client.close_retainer())
                    await self._bell.release("bell closed")
        return {"completed": sum(1 for r in results if r["ok"]), "requested": len(transfers), "results": results}

    async def _one(self, index: int, item_id: int, source: str, target: str) -> dict[str, Any]:
        client = self._game.client
        names = {i.item_id: i.name for i in await self._game.call(client.items())}
        item = names.get(item_id, str(item_id))
        moves: list[dict[str, Any]] = []

        def outcome(error: str | None, quantity: int = 0) -> dict[str, Any]:
            stacks = 0 if quantity == 0 else 1
            return {
                "index": index,
                "ok": error is None,
                "item": item,
                "from": source,
                "to": target,
                "stacksMoved": stacks,
                "quantityMoved": quantity,
                "error": error,
                "moves": moves,
            }

        try:
            return await self._move(item_id, source, target, moves, outcome)
        except RefusedError as exc:  # the game refused one move (a retainer it does not know ...)
            return outcome(str(exc), sum(m["quantity"] for m in moves[-1:]))

    async def _move(
        self,
        item_id: int,
        source: str,
        target: str,
        moves: list[dict[str, Any]],
        outcome: Callable[..., dict[str, Any]],
    ) -> dict[str, Any]:
        client = self._game.client
        item = outcome(None)["item"]
        from_player, to_player = source.casefold() == PLAYER, target.casefold() == PLAYER
        inventory = await self._game.call(client.inventory())
        quantity = next((i.count for i in inventory.items if i.item_id == item_id), 0)
        if from_player:
            if quantity == 0:
                return outcome(f"{item} is not in your bags.")
            if to_player:
                return outcome("from and to are both the player.")
        else:
            await self._game.call(client.open_retainer(source))
            status = await self._game.call(client.retainers())
            holder = next((r for r in status.retainers if r.name == status.open), None)
            quantity = 0 if holder is None else next((i.count for i in holder.items if i.item_id == item_id), 0)
            if quantity == 0:
                return outcome(f"{source} has no {item}.")
            await self._game.call(client.retainer_transfer(item_id, quantity, "withdraw"))
            moves.append({"from": source, "to": PLAYER, "quantity": quantity})
            if to_player:
                return outcome(None, quantity)
        await self._game.call(client.open_retainer(target))
        await self._game.call(client.retainer_transfer(item_id, quantity, "entrust"))
        moves.append({"from": PLAYER, "to": target, "quantity": quantity})
        return outcome(None, quantity)
