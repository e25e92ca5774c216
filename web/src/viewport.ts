// Zoom and pan of the board's SVG, and the cell a pointer is on. One set of Pointer
// Events serves touch, pen and mouse: two fingers pinch (zoom about their midpoint)
// and drag; one finger or the mouse drags to pan when the board is zoomed; Ctrl with
// the wheel (a trackpad's pinch) zooms about the pointer; a press that does not move
// is a tap on the cell under it. The cell is found from the geometry, so nothing drawn
// over the cells can take a tap from them.
import { CELL } from "./board";
import type { Box, Cell } from "./board";

export interface ViewportHandlers {
  /** A tap (or a click) on a cell. */
  tap(cell: Cell, pointerType: string): void;
  /** The mouse is over a cell (null: off the board). */
  hover(cell: Cell | null): void;
  /** The visible box changed (zoom, pan, a new board). */
  changed(view: Box, unitsPerPx: number): void;
}

const MAX_ZOOM = 6;
const SLOP = { mouse: 4, pen: 6, touch: 10 } as Record<string, number>; // px a tap may move

export class Viewport {
  zoom = 1;
  /** The centre of the view, in board units. */
  cx = 0;
  cy = 0;
  base: Box = { x: 0, y: 0, w: CELL, h: CELL };
  private pointers = new Map<number, { x: number; y: number; type: string }>();
  private press: { id: number; x: number; y: number; type: string; moved: boolean } | null = null;
  private pinch: { distance: number; zoom: number; anchor: { x: number; y: number } } | null = null;
  private hovered: string | null = null;

  constructor(private svg: SVGSVGElement, private handlers: ViewportHandlers) {
    svg.addEventListener("pointerdown", (e) => this.down(e));
    svg.addEventListener("pointermove", (e) => this.move(e));
    svg.addEventListener("pointerup", (e) => this.up(e, true));
    svg.addEventListener("pointercancel", (e) => this.up(e, false));
    svg.addEventListener("pointerleave", (e) => {
      if (e.pointerType === "mouse" && !this.pointers.size) this.hoverAt(null);
    });
    svg.addEventListener("wheel", (e) => {
      if (!e.ctrlKey) return; // the plain wheel turns the tile (main.ts)
      e.preventDefault();
      this.zoomAbout(Math.exp(-e.deltaY / 200), this.toBoard(e.clientX, e.clientY));
    }, { passive: false });
    new ResizeObserver(() => this.apply()).observe(svg);
  }

  /** The visible box. */
  get view(): Box {
    const w = this.base.w / this.zoom, h = this.base.h / this.zoom;
    return { x: this.cx - w / 2, y: this.cy - h / 2, w, h };
  }

  /** A new drawing: keeps the zoom and the centre (within the new box). */
  setBase(box: Box): void {
    const first = this.base.w === CELL && this.base.h === CELL;
    this.base = box;
    if (first || this.zoom === 1) { this.cx = box.x + box.w / 2; this.cy = box.y + box.h / 2; }
    this.svg.style.aspectRatio = `${box.w} / ${box.h}`;
    this.apply();
  }

  zoomBy(factor: number): void {
    this.zoomAbout(factor, { x: this.cx, y: this.cy });
  }

  /** Pans by a fraction of the visible box (dx, dy in -1..1). */
  panBy(dx: number, dy: number): void {
    const v = this.view;
    this.cx += dx * v.w;
    this.cy += dy * v.h;
    this.apply();
  }

  fit(): void {
    this.zoom = 1;
    this.cx = this.base.x + this.base.w / 2;
    this.cy = this.base.y + this.base.h / 2;
    this.apply();
  }

  /** Shows `cell` if it is out of view (for the keyboard's cursor). */
  reveal(cell: Cell): void {
    const v = this.view, x = cell.x * CELL + CELL / 2, y = cell.y * CELL + CELL / 2;
    if (x < v.x + CELL / 2 || x > v.x + v.w - CELL / 2) this.cx = x;
    if (y < v.y + CELL / 2 || y > v.y + v.h - CELL / 2) this.cy = y;
    this.apply();
  }

  private zoomAbout(factor: number, anchor: { x: number; y: number }): void {
    const zoom = Math.max(1, Math.min(MAX_ZOOM, this.zoom * factor));
    const k = this.zoom / zoom; // the anchor stays where it is on the screen
    this.cx = anchor.x + (this.cx - anchor.x) * k;
    this.cy = anchor.y + (this.cy - anchor.y) * k;
    this.zoom = zoom;
    this.apply();
  }

  /** Board units per screen pixel. */
  private unitsPerPx(): number {
    const m = this.svg.getScreenCTM();
    return m && m.a ? 1 / m.a : 1;
  }

  private toBoard(clientX: number, clientY: number): { x: number; y: number } {
    const m = this.svg.getScreenCTM();
    if (!m) return { x: this.cx, y: this.cy };
    const p = new DOMPoint(clientX, clientY).matrixTransform(m.inverse());
    return { x: p.x, y: p.y };
  }

  private cellAt(clientX: number, clientY: number): Cell {
    const p = this.toBoard(clientX, clientY);
    return { x: Math.floor(p.x / CELL), y: Math.floor(p.y / CELL) };
  }

  apply(): void {
    const b = this.base, v0 = this.view;
    // keep the centre over the board
    this.cx = b.w <= v0.w ? b.x + b.w / 2 : Math.max(b.x + v0.w / 2, Math.min(b.x + b.w - v0.w / 2, this.cx));
    this.cy = b.h <= v0.h ? b.y + b.h / 2 : Math.max(b.y + v0.h / 2, Math.min(b.y + b.h - v0.h / 2, this.cy));
    const v = this.view;
    this.svg.setAttribute("viewBox", `${v.x} ${v.y} ${v.w} ${v.h}`);
    this.svg.dataset.zoom = this.zoom.toFixed(3);
    this.handlers.changed(v, this.unitsPerPx());
  }

  private down(e: PointerEvent): void {
    if (e.pointerType === "mouse" && e.button !== 0) return;
    this.svg.setPointerCapture?.(e.pointerId);
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, type: e.pointerType });
    if (this.pointers.size === 1) {
      this.press = { id: e.pointerId, x: e.clientX, y: e.clientY, type: e.pointerType, moved: false };
    } else if (this.pointers.size === 2) {
      this.press = null; // two fingers: a pinch, never a tap
      const [a, b] = [...this.pointers.values()];
      this.pinch = { distance: Math.hypot(a.x - b.x, a.y - b.y) || 1, zoom: this.zoom,
        anchor: this.toBoard((a.x + b.x) / 2, (a.y + b.y) / 2) };
    }
  }

  private move(e: PointerEvent): void {
    const p = this.pointers.get(e.pointerId);
    if (!p) { // no button pressed: the mouse hovers
      if (e.pointerType === "mouse") this.hoverAt(this.cellAt(e.clientX, e.clientY));
      return;
    }
    const dx = e.clientX - p.x, dy = e.clientY - p.y;
    p.x = e.clientX; p.y = e.clientY;
    if (this.pinch && this.pointers.size >= 2) {
      const [a, b] = [...this.pointers.values()];
      const zoom = Math.max(1, Math.min(MAX_ZOOM, this.pinch.zoom * Math.hypot(a.x - b.x, a.y - b.y) / this.pinch.distance));
      this.zoom = zoom;
      this.apply(); // the new scale first, then the anchor back under the fingers' midpoint
      const mid = this.toBoard((a.x + b.x) / 2, (a.y + b.y) / 2);
      this.cx += this.pinch.anchor.x - mid.x;
      this.cy += this.pinch.anchor.y - mid.y;
      this.apply();
      return;
    }
    const press = this.press;
    if (!press || press.id !== e.pointerId) return;
    if (!press.moved && Math.hypot(e.clientX - press.x, e.clientY - press.y) > (SLOP[press.type] ?? 6)) press.moved = true;
    if (press.moved) {
      const k = this.unitsPerPx();
      this.cx -= dx * k;
      this.cy -= dy * k;
      this.apply();
    }
    if (e.pointerType === "mouse") this.hoverAt(this.cellAt(e.clientX, e.clientY));
  }

  private up(e: PointerEvent, ended: boolean): void {
    if (!this.pointers.delete(e.pointerId)) return;
    const press = this.press;
    if (this.pointers.size < 2) this.pinch = null;
    if (!press || press.id !== e.pointerId) return;
    this.press = null;
    if (ended && !press.moved) this.handlers.tap(this.cellAt(e.clientX, e.clientY), press.type);
  }

  private hoverAt(cell: Cell | null): void {
    const k = cell ? `${cell.x},${cell.y}` : null;
    if (k === this.hovered) return;
    this.hovered = k;
    this.handlers.hover(cell);
  }
}
