/* svg.c: SVG 1.1 plots (see render.h): x-y plots (lines, ± bands, points, labels; linear, log2 and
 * log10 axes), grouped and stacked bar charts, strip plots.
 *
 * Every plot is laid out the same way, top to bottom: title, legend (wrapped into rows), plot area
 * with grid lines, axes with tick labels and axis labels, and a note line saying what could not be
 * drawn. Text widths are estimated from DejaVu Sans's advance widths (the widest of the fonts
 * named), so that estimates err on the side of room. Reference-line labels sit in the right margin
 * and category names wrap (or turn) so that no text overlaps another.
 *
 * Marks are clipped to the plot area (with a few pixels of slack, so that a point on the edge
 * shows whole) by drawing them inside a nested <svg> viewport, which clips by default: no
 * clipPath. Points are one path per series whose vertices carry a <marker> (a dot): the one id a
 * plot defines, "d" and a hash of the plot's text before it (so that two different plots on one
 * HTML page never share one; two identical plots share identical dots).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/hash.h"
#include "reports/render.h"

#define DEFAULT_WIDTH 760
#define DEFAULT_HEIGHT 440
#define FONT_FAMILY "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"
#define PAD 16.0          /* outer margin */
#define TITLE_SIZE 17.0
#define LEGEND_SIZE 12.5
#define TICK_SIZE 12.0
#define LABEL_SIZE 13.0
#define NOTE_SIZE 11.0
#define CLIP_SLACK 6.0    /* pixels around the plot area where marks still show */
#define MAX_TICKS 64
#define INK "#1a1a1a"
#define TEXT_GREY "#555555"
#define AXIS_GREY "#8a8a8a"
#define GRID_GREY "#e4e4e4"
#define REFERENCE_GREY "#6e6e6e"

/* Tableau 10: distinct in hue and lightness, readable by most colour-blind viewers. */
static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define PALETTE_SIZE (sizeof palette / sizeof palette[0])

/* ---- small writers --------------------------------------------------------------------------- */

/* A coordinate with one decimal ("-0.0" written as "0", "621.0" as "621"): plenty at screen resolution, and short. */
static void num(buf *o, double v) {
    if (fabs(v) < 0.05) v = 0;
    size_t at = o->len;
    buf_printf(o, "%.1f", v);
    if (o->len >= at + 2 && !memcmp(o->data + o->len - 2, ".0", 2)) o->data[o->len -= 2] = '\0'; /* 621.0 as 621 */
}

/* Advance widths of printable ASCII in DejaVu Sans, in hundredths of an em (the widest of the
 * fonts named, so that an estimate errs on the side of room); other characters count 0.7 em. */
static const unsigned char ascii_width[95] = {
    32, 40, 46, 84, 64, 95, 78, 28, 39, 39, 50, 84, 32, 36, 32, 34, 64, 64, 64, 64, 64, 64, 64, 64,
    64, 64, 34, 34, 84, 84, 84, 53, 100, 68, 69, 70, 77, 63, 58, 78, 75, 29, 29, 66, 56, 86, 75, 79,
    60, 79, 69, 64, 61, 73, 68, 99, 69, 61, 69, 39, 34, 39, 84, 50, 50, 61, 63, 55, 63, 62, 35, 63,
    63, 28, 28, 58, 28, 97, 63, 61, 63, 63, 41, 52, 39, 63, 59, 82, 59, 59, 53, 64, 34, 64, 84};

/* Estimated width in pixels of the code point starting at p. */
static double char_width(const char *p, double size) {
    unsigned char c = (unsigned char)*p;
    return (c >= 32 && c < 127 ? ascii_width[c - 32] : 70) * size / 100.0;
}

/* Estimated width in pixels of s at this font size. */
static double text_width(const char *s, double size) {
    double w = 0;
    for (const char *p = s; *p; p++)
        if (((unsigned char)*p & 0xC0) != 0x80) w += char_width(p, size);
    return w;
}

/* Appends s (cleaned) cut to fit max_px at this font size with "…" at the end, or in the middle
 * (keeping both ends of path-like names). */
static void fit_text(buf *o, const char *s, double size, double max_px, int middle) {
    buf clean = {0};
    tta_text_clean(&clean, s);
    const char *c = buf_str(&clean);
    if (text_width(c, size) <= max_px) {
        buf_puts(o, c);
        buf_free(&clean);
        return;
    }
    size_t n = 0, *start = callocCheck(clean.len + 2, sizeof *start); /* code point offsets */
    for (size_t i = 0; i < clean.len; i++)
        if (((unsigned char)c[i] & 0xC0) != 0x80) start[n++] = i;
    start[n] = clean.len;
    double room = max_px - size * 0.8; /* the ellipsis */
    size_t head = 0, tail = 0; /* code points kept at each end */
    for (int turn = 0;; turn = !turn) {
        int take_tail = middle && turn;
        size_t k = take_tail ? n - 1 - tail : head;
        if (head + tail >= n) break;
        double cw = char_width(c + start[k], size);
        if (cw > room) break;
        room -= cw;
        if (take_tail) tail++;
        else head++;
    }
    buf_append(o, c, start[head]);
    buf_puts(o, "\xE2\x80\xA6");
    buf_puts(o, c + start[n - tail]);
    free(start);
    buf_free(&clean);
}

/* The fill of a tick label: its size and colour (TICK_SIZE, TEXT_GREY) come from the axis's <g>
 * (AXIS_G_ATTRS), not from attributes on each label. */
static const char TICK_INK[] = TEXT_GREY;
#define AXIS_G_ATTRS " font-size=\"12\" fill=\"" TEXT_GREY "\""
/* Likewise a legend's labels: from the legend's <g> (LEGEND_G_ATTRS). */
static const char LEGEND_INK[] = "#333333";
#define LEGEND_G_ATTRS " font-size=\"12.5\" fill=\"#333333\""

/* <text> at (x, y) with anchor start|middle|end (NULL: its group's; x NAN: neither, attrs places it); attrs (may be "") adds attributes. The text is cut
 * to max_px (0: no limit) and escaped; when cut, the whole text is kept in a <title> tooltip. */
static void text_el_cut(buf *o, double x, double y, const char *anchor, double size, const char *fill,
                        const char *attrs, const char *s, double max_px, int middle) {
    if (isnan(x)) { /* placed by attrs' transform, anchored by its group */
        buf_puts(o, "<text");
    } else {
        buf_puts(o, "<text x=\"");
        num(o, x);
        buf_puts(o, "\" y=\"");
        num(o, y);
        buf_putc(o, '"');
        if (anchor && strcmp(anchor, "start")) buf_printf(o, " text-anchor=\"%s\"", anchor); /* start: SVG's default */
    }
    if (fill != TICK_INK && fill != LEGEND_INK) buf_printf(o, " font-size=\"%g\" fill=\"%s\"", size, fill);
    buf_printf(o, "%s%s>", *attrs ? " " : "", attrs);
    buf shown = {0};
    if (max_px > 0) fit_text(&shown, s, size, max_px, middle);
    else tta_text_clean(&shown, s);
    if (max_px > 0 && text_width(s, size) > max_px) {
        buf_puts(o, "<title>");
        tta_xml_escape(o, s);
        buf_puts(o, "</title>");
    }
    tta_xml_escape(o, buf_str(&shown));
    buf_puts(o, "</text>\n");
    buf_free(&shown);
}

/* text_el_cut, cutting at the end. */
static void text_el(buf *o, double x, double y, const char *anchor, double size, const char *fill, const char *attrs,
                    const char *s, double max_px) {
    text_el_cut(o, x, y, anchor, size, fill, attrs, s, max_px, 0);
}

/* A line from (x1, y1) to (x2, y2); attrs (may be "") adds attributes. */
static void line_el(buf *o, double x1, double y1, double x2, double y2, const char *stroke, double width,
                    const char *attrs) {
    /* a path "M x1 y1 h dx" (or "v dy", else "L x2 y2"): shorter than a <line>, drawn the same */
    buf_puts(o, "<path d=\"M");
    num(o, x1);
    buf_putc(o, ' ');
    num(o, y1);
    if (y1 == y2) {
        buf_putc(o, 'h');
        num(o, x2 - x1);
    } else if (x1 == x2) {
        buf_putc(o, 'v');
        num(o, y2 - y1);
    } else {
        buf_putc(o, 'L');
        num(o, x2);
        buf_putc(o, ' ');
        num(o, y2);
    }
    buf_printf(o, "\" stroke=\"%s\"", stroke);
    if (width != 1) buf_printf(o, " stroke-width=\"%g\"", width); /* 1 is SVG's default */
    buf_printf(o, "%s%s/>\n", *attrs ? " " : "", attrs);
}

/* <rect>; attrs (may be "") adds attributes. */
static void rect_el(buf *o, double x, double y, double w, double h, const char *fill, const char *attrs) {
    buf_puts(o, "<rect x=\"");
    num(o, x);
    buf_puts(o, "\" y=\"");
    num(o, y);
    buf_puts(o, "\" width=\"");
    num(o, w);
    buf_puts(o, "\" height=\"");
    num(o, h);
    buf_printf(o, "\" fill=\"%s\"%s%s/>\n", fill, *attrs ? " " : "", attrs);
}

/* <circle>; attrs (may be "") adds attributes. */
static void circle_el(buf *o, double x, double y, double r, const char *fill, const char *attrs) {
    buf_puts(o, "<circle cx=\"");
    num(o, x);
    buf_puts(o, "\" cy=\"");
    num(o, y);
    buf_printf(o, "\" r=\"%g\" fill=\"%s\"%s%s/>\n", r, fill, *attrs ? " " : "", attrs);
}

/* Text on a bar in black or white, whichever reads better on the fill (#rrggbb). */
static const char *ink_on(const char *fill) {
    unsigned r, g, b;
    if (sscanf(fill, "#%2x%2x%2x", &r, &g, &b) != 3) return INK;
    return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? INK : "#ffffff";
}

/* ---- document, title, legend ----------------------------------------------------------------- */

typedef enum { SWATCH_LINE, SWATCH_POINT, SWATCH_LINE_POINT, SWATCH_BAND, SWATCH_BOX, SWATCH_MEAN, SWATCH_NONE } swatch_kind;

typedef struct {
    const char *label;
    swatch_kind kind;
    const char *color;
    double width; /* line width */
    int dashed;
} legend_item;

#define SWATCH_W 22.0
#define LEGEND_ROW 20.0

/* Width of a legend entry: swatch, gap, label (cut beyond 320 px). */
static double legend_item_width(const legend_item *it) {
    double w = SWATCH_W + 6 + text_width(it->label, LEGEND_SIZE);
    return w < 320 ? w : 320; /* long names are cut */
}

/* Height of the legend rows for these items across width w. */
static double legend_height(const legend_item *items, size_t n, double w) {
    if (n == 0) return 0;
    double x = PAD;
    int rows = 1;
    for (size_t i = 0; i < n; i++) {
        double iw = legend_item_width(&items[i]);
        if (x > PAD && x + iw > w - PAD) {
            rows++;
            x = PAD;
        }
        x += iw + 18;
    }
    return rows * LEGEND_ROW;
}

/* The legend's picture of a series at (x, y): its line, band, dot, box or mean bar. */
static void draw_swatch(buf *o, const legend_item *it, double x, double y) {
    const char *attrs = it->dashed ? "stroke-dasharray=\"5 3\"" : "";
    switch (it->kind) {
    case SWATCH_BAND:
        rect_el(o, x, y - 6, SWATCH_W, 12, it->color, "fill-opacity=\"0.2\"");
        line_el(o, x, y, x + SWATCH_W, y, it->color, it->width, attrs);
        break;
    case SWATCH_LINE: line_el(o, x, y, x + SWATCH_W, y, it->color, it->width, attrs); break;
    case SWATCH_LINE_POINT:
        line_el(o, x, y, x + SWATCH_W, y, it->color, it->width, attrs);
        circle_el(o, x + SWATCH_W / 2, y, 3.5, it->color, "stroke=\"#ffffff\" stroke-width=\"1\"");
        break;
    case SWATCH_POINT: circle_el(o, x + SWATCH_W / 2, y, 4.5, it->color, "fill-opacity=\"0.8\""); break;
    case SWATCH_BOX: rect_el(o, x + 4, y - 6, 14, 12, it->color, ""); break;
    case SWATCH_MEAN: line_el(o, x + 2, y, x + SWATCH_W - 2, y, it->color, 2.5, ""); break;
    case SWATCH_NONE: break;
    }
}

/* The legend entries from top, left to right, wrapping into rows as legend_height measured. */
static void draw_legend(buf *o, const legend_item *items, size_t n, double w, double top) {
    double x = PAD, y = top + LEGEND_ROW / 2;
    buf_puts(o, "<g class=\"legend\"" LEGEND_G_ATTRS ">\n");
    for (size_t i = 0; i < n; i++) {
        double iw = legend_item_width(&items[i]);
        if (x > PAD && x + iw > w - PAD) {
            x = PAD;
            y += LEGEND_ROW;
        }
        /* an item is its swatch and its label (class "more": the items left out) */
        draw_swatch(o, &items[i], x, y);
        text_el(o, x + SWATCH_W + 6, y + 4.3, "start", LEGEND_SIZE, LEGEND_INK,
                items[i].kind == SWATCH_NONE ? "class=\"more\"" : "", items[i].label, iw - SWATCH_W - 6);
        x += iw + 18;
    }
    buf_puts(o, "</g>\n");
}

/* The height of a plot and the legend entries it shows. With height 0 the plot is 440 pixels plus
 * one legend row for each row beyond two, so that a long legend does not crush the plot area.
 * A fixed height keeps the legend within a third of it: the entries that do not fit are replaced
 * by "+N more" (written into more, which must outlive the drawing). */
static int fit_legend(int height, int w, legend_item *items, size_t *n, char *more, size_t more_len) {
    double rows = legend_height(items, *n, w) / LEGEND_ROW;
    if (height <= 0) return DEFAULT_HEIGHT + (int)(rows > 2 ? (rows - 2) * LEGEND_ROW : 0);
    double max_rows = fmax(1, floor(height / 3.0 / LEGEND_ROW));
    if (rows <= max_rows) return height;
    size_t keep = *n;
    for (; keep > 0; keep--) {
        snprintf(more, more_len, "+%zu more", *n - keep + 1);
        legend_item saved = items[keep - 1];
        items[keep - 1] = (legend_item){more, SWATCH_NONE, INK, 0, 0};
        int fits = legend_height(items, keep, w) / LEGEND_ROW <= max_rows;
        if (fits) break;
        items[keep - 1] = saved;
    }
    *n = keep;
    return height;
}

/* Opens the document and draws background, title and legend; returns the y where the plot area may
 * begin. */
static double begin_plot(buf *o, int w, int h, const char *title, const legend_item *items, size_t n_items) {
    buf_printf(o,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
               " font-family=\"%s\">\n",
               w, h, w, h, FONT_FAMILY);
    if (title) {
        buf_puts(o, "<title>");
        tta_xml_escape(o, title);
        buf_puts(o, "</title>\n");
    }
    rect_el(o, 0, 0, w, h, "#ffffff", "");
    double y = PAD;
    if (title && *title) {
        /* bold glyphs are about a tenth wider than the regular widths estimated */
        text_el(o, PAD, PAD + TITLE_SIZE - 3, "start", TITLE_SIZE, INK, "font-weight=\"bold\" class=\"title\"", title,
                (w - 2 * PAD) / 1.1);
        y += TITLE_SIZE + 10;
    }
    if (n_items) {
        draw_legend(o, items, n_items, w, y);
        y += legend_height(items, n_items, w) + 4;
    }
    return y + 12;
}

/* Notes (what could not be drawn) at the bottom left, one line. */
static void draw_note(buf *o, int h, const buf *note) {
    if (note->len == 0) return;
    text_el(o, PAD, h - 8, "start", NOTE_SIZE, "#777777", "font-style=\"italic\" class=\"note\"", buf_str(note), 0);
}

/* Closes the document. */
static void end_plot(buf *o) { buf_puts(o, "</svg>\n"); }

/* Opens the nested viewport that clips marks to the plot area (plus slack); coordinates inside
 * stay those of the whole plot. */
static void begin_clip(buf *o, double left, double top, double right, double bottom) {
    double x = left - CLIP_SLACK, y = top - CLIP_SLACK, w = right - left + 2 * CLIP_SLACK,
           h = bottom - top + 2 * CLIP_SLACK;
    buf_puts(o, "<svg x=\"");
    num(o, x);
    buf_puts(o, "\" y=\"");
    num(o, y);
    buf_puts(o, "\" width=\"");
    num(o, w);
    buf_puts(o, "\" height=\"");
    num(o, h);
    buf_puts(o, "\" viewBox=\"");
    num(o, x);
    buf_putc(o, ' ');
    num(o, y);
    buf_putc(o, ' ');
    num(o, w);
    buf_putc(o, ' ');
    num(o, h);
    buf_puts(o, "\" overflow=\"hidden\">\n");
}

/* Closes the viewport of begin_clip. */
static void end_clip(buf *o) { buf_puts(o, "</svg>\n"); }

/* ---- scales and ticks ------------------------------------------------------------------------ */

typedef struct {
    tta_axis_scale kind;
    double lo, hi;    /* shown range, data units */
    double p0, p1;    /* pixels of lo and hi */
    double tick[MAX_TICKS];
    size_t n_ticks;
    double minor[MAX_TICKS * 2]; /* log10: unlabelled ticks at 2..9 x 10^k */
    size_t n_minor;
    double step;      /* linear: the tick step */
    double si;        /* linear: 1, or 1e3, 1e6, ... when labels carry a k, M, ... suffix */
    const char *const *names; /* a category axis: tick i (at value i) is labelled names[i]; else NULL */
} scale;

/* v in the scale's linear space: itself, or its log. */
static double forward(const scale *s, double v) {
    switch (s->kind) {
    case TTA_AXIS_LOG2: return log2(v);
    case TTA_AXIS_LOG10: return log10(v);
    default: return v;
    }
}

/* The pixel of v on the scale (v must be placeable). */
static double to_px(const scale *s, double v) {
    double a = forward(s, s->lo), b = forward(s, s->hi);
    return s->p0 + (forward(s, v) - a) / (b - a) * (s->p1 - s->p0);
}

/* Whether v can be placed on the scale at all (finite, positive on log scales). */
static int placeable(tta_axis_scale kind, double v) { return isfinite(v) && (kind == TTA_AXIS_LINEAR || v > 0); }

/* Whether v lies within the shown range (with a rounding tolerance). */
static int inside(const scale *s, double v) {
    double eps = (s->kind == TTA_AXIS_LINEAR ? s->hi - s->lo : 0) * 1e-9;
    return s->kind == TTA_AXIS_LINEAR ? v >= s->lo - eps && v <= s->hi + eps : v >= s->lo * (1 - 1e-9) && v <= s->hi * (1 + 1e-9);
}

/* 1, 2 or 5 x 10^k: the round step nearest to span / target. */
static double nice_step(double span, double target) {
    double raw = span / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

/* Chooses range and ticks of an axis from the data's range [dmin, dmax] (have: there is data),
 * aiming at about `target` labelled ticks. */
static void scale_fit(scale *s, const tta_axis *a, double dmin, double dmax, int have, double target) {
    memset(s, 0, sizeof *s);
    s->kind = a->scale;
    s->si = 1;
    if (target < 2) target = 2;
    int fixed = a->min < a->max;
    if (s->kind == TTA_AXIS_LINEAR) {
        if (fixed) {
            dmin = a->min;
            dmax = a->max;
        } else {
            if (!have) dmin = 0, dmax = 1;
            if (a->include_zero) {
                if (dmin > 0) dmin = 0;
                if (dmax < 0) dmax = 0;
            }
            if (dmax - dmin <= fabs(dmax) * 1e-12) { /* one value: a range around it */
                double d = dmax == 0 ? 1 : fabs(dmax) * 0.1;
                if (dmin != 0 || !a->include_zero) dmin -= d;
                dmax += d;
            }
        }
        s->step = nice_step(dmax - dmin, target);
        s->lo = fixed ? dmin : floor(dmin / s->step + 1e-9) * s->step;
        s->hi = fixed ? dmax : ceil(dmax / s->step - 1e-9) * s->step;
        for (double k = ceil(s->lo / s->step - 1e-9); s->n_ticks < MAX_TICKS; k++) {
            double v = k * s->step;
            if (v > s->hi + s->step * 1e-9) break;
            s->tick[s->n_ticks++] = fabs(v) < s->step * 1e-9 ? 0 : v;
        }
        double m = fmax(fabs(s->lo), fabs(s->hi));
        if (m >= 1e4)
            for (s->si = 1e3; s->si < 1e12 && m >= s->si * 1e3;) s->si *= 1e3;
        return;
    }
    double base = s->kind == TTA_AXIS_LOG2 ? 2 : 10;
    if (fixed) {
        assert(a->min > 0);
        s->lo = a->min;
        s->hi = a->max;
    } else {
        if (!have) dmin = 1, dmax = base;
        double e0 = floor(log(dmin) / log(base) + 1e-9), e1 = ceil(log(dmax) / log(base) - 1e-9);
        if (e1 <= e0) e1 = e0 + 1;
        s->lo = pow(base, e0);
        s->hi = pow(base, e1);
    }
    double e0 = ceil(log(s->lo) / log(base) - 1e-9), e1 = floor(log(s->hi) / log(base) + 1e-9);
    double every = ceil((e1 - e0 + 1) / (target * 1.5));
    if (every < 1) every = 1;
    if (!fixed && fmod(e1 - e0, every) != 0) { /* end the axis on a labelled tick */
        e1 = e0 + every * ceil((e1 - e0) / every);
        s->hi = pow(base, e1);
    }
    for (double e = e0; e <= e1 && s->n_ticks < MAX_TICKS; e++)
        if (fmod(e - e0, every) == 0) s->tick[s->n_ticks++] = pow(base, e);
    if (s->kind == TTA_AXIS_LOG10) {
        double decades = log10(s->hi / s->lo);
        for (double e = floor(log10(s->lo)); e <= ceil(log10(s->hi)); e++)
            for (int m = 2; m <= 9; m++) {
                double v = m * pow(10, e);
                if (v < s->lo * (1 - 1e-9) || v > s->hi * (1 + 1e-9)) continue;
                if (decades <= 1.5 && (m == 2 || m == 5) && s->n_ticks < MAX_TICKS) s->tick[s->n_ticks++] = v;
                else if (decades <= 8 && s->n_minor < MAX_TICKS * 2) s->minor[s->n_minor++] = v;
            }
        /* keep labelled ticks in order */
        for (size_t i = 1; i < s->n_ticks; i++)
            for (size_t j = i; j > 0 && s->tick[j - 1] > s->tick[j]; j--) {
                double t = s->tick[j];
                s->tick[j] = s->tick[j - 1];
                s->tick[j - 1] = t;
            }
    }
}

/* Makes s a category axis: linear, categories at 0 .. n-1 with half a step of room each side, a
 * tick at each, labelled with its name. */
static void scale_categories(scale *s, const char *const *names, size_t n) {
    assert(names && n > 0);
    memset(s, 0, sizeof *s);
    s->kind = TTA_AXIS_LINEAR;
    s->si = 1;
    s->step = 1;
    s->names = names;
    s->lo = -0.5;
    s->hi = (double)n - 0.5;
    for (size_t i = 0; i < n && s->n_ticks < MAX_TICKS; i++) s->tick[s->n_ticks++] = (double)i;
}

/* Appends the label of tick v: decimals from the step, k/M/G/T for large values; a category's name. */
static void tick_label(buf *o, const scale *s, double v) {
    static const char *const suffix[] = {"", "k", "M", "G", "T"};
    if (s->names) {
        buf_puts(o, s->names[(size_t)v] ? s->names[(size_t)v] : "");
        return;
    }
    if (s->kind == TTA_AXIS_LINEAR) {
        double step = s->step / s->si;
        int decimals = step >= 1 ? 0 : (int)-floor(log10(step) + 1e-9);
        int which = s->si >= 1e12 ? 4 : s->si >= 1e9 ? 3 : s->si >= 1e6 ? 2 : s->si >= 1e3 ? 1 : 0;
        buf_printf(o, "%.*f%s", decimals, v / s->si, v == 0 ? "" : suffix[which]);
        return;
    }
    if (s->kind == TTA_AXIS_LOG2) { /* powers of two read best whole: 1024, not 1.024k */
        buf_printf(o, "%.10g", v);
        return;
    }
    int which = 0;
    double d = 1;
    if (fabs(v) >= 1e4)
        while (which < 4 && fabs(v) >= d * 1e3) {
            d *= 1e3;
            which++;
        }
    buf_printf(o, "%.6g%s", v / d, suffix[which]);
}

/* Width in pixels of the widest tick label, to size the left margin. */
static double widest_tick_label(const scale *s) {
    double w = 0;
    buf b = {0};
    for (size_t i = 0; i < s->n_ticks; i++) {
        buf_clear(&b);
        tick_label(&b, s, s->tick[i]);
        double tw = text_width(buf_str(&b), TICK_SIZE);
        if (tw > w) w = tw;
    }
    buf_free(&b);
    return w;
}

/* Appends to d a segment from (x1, y1) to (x2, y2), horizontal or vertical, for a path. */
static void seg_d(buf *d, double x1, double y1, double x2, double y2) {
    buf_putc(d, 'M');
    num(d, x1);
    buf_putc(d, ' ');
    num(d, y1);
    if (y1 == y2) {
        buf_putc(d, 'H');
        num(d, x2);
    } else {
        buf_putc(d, 'V');
        num(d, y2);
    }
}

/* The segments of d as one 1 px <path> in stroke (as many <line>s would draw them, in fewer bytes);
 * nothing when d is empty. Empties d. */
static void segs_el(buf *o, buf *d, const char *stroke) {
    if (d->len) buf_printf(o, "<path stroke=\"%s\" fill=\"none\" d=\"%s\"/>\n", stroke, buf_str(d));
    buf_clear(d);
}

/* Horizontal grid lines and the y axis: line, ticks, labels, rotated label. */
static void draw_y_axis(buf *o, const scale *y, double left, double right, const char *label) {
    buf b = {0}, d = {0};
    buf_puts(o, "<g class=\"grid\">\n");
    for (size_t i = 0; i < y->n_minor; i++) seg_d(&d, left, to_px(y, y->minor[i]), right, to_px(y, y->minor[i]));
    segs_el(o, &d, "#f1f1f1");
    for (size_t i = 0; i < y->n_ticks; i++) seg_d(&d, left, to_px(y, y->tick[i]), right, to_px(y, y->tick[i]));
    segs_el(o, &d, GRID_GREY);
    buf_puts(o, "</g>\n<g class=\"y-axis\"" AXIS_G_ATTRS " text-anchor=\"end\">\n"); /* the tick labels' anchor */
    seg_d(&d, left, y->p0, left, y->p1);
    for (size_t i = 0; i < y->n_ticks; i++) seg_d(&d, left - 5, to_px(y, y->tick[i]), left, to_px(y, y->tick[i]));
    segs_el(o, &d, AXIS_GREY);
    buf_free(&d);
    for (size_t i = 0; i < y->n_ticks; i++) {
        double py = to_px(y, y->tick[i]);
        buf_clear(&b);
        tick_label(&b, y, y->tick[i]);
        text_el(o, left - 8, py + 4, NULL, TICK_SIZE, TICK_INK, "", buf_str(&b), 0);
    }
    if (label && *label) {
        double cy = (y->p0 + y->p1) / 2;
        buf_clear(&b);
        buf_puts(&b, "transform=\"rotate(-90 ");
        num(&b, PAD + LABEL_SIZE - 2);
        buf_putc(&b, ' ');
        num(&b, cy);
        buf_puts(&b, ")\"");
        char *attrs = buf_take(&b);
        text_el(o, PAD + LABEL_SIZE - 2, cy, "middle", LABEL_SIZE, "#333333", attrs, label, fabs(y->p0 - y->p1));
        free(attrs);
    }
    buf_puts(o, "</g>\n");
    buf_free(&b);
}

/* Vertical grid lines and the x axis of a numeric scale. */
static void draw_x_axis(buf *o, const scale *x, double top, double bottom, const char *label, double label_y) {
    buf b = {0}, d = {0};
    buf_puts(o, "<g class=\"grid\">\n");
    for (size_t i = 0; i < x->n_minor; i++) seg_d(&d, to_px(x, x->minor[i]), top, to_px(x, x->minor[i]), bottom);
    segs_el(o, &d, "#f1f1f1");
    for (size_t i = 0; i < x->n_ticks; i++) seg_d(&d, to_px(x, x->tick[i]), top, to_px(x, x->tick[i]), bottom);
    segs_el(o, &d, GRID_GREY);
    buf_puts(o, "</g>\n<g class=\"x-axis\"" AXIS_G_ATTRS " text-anchor=\"middle\">\n"); /* its labels' anchor */
    seg_d(&d, x->p0, bottom, x->p1, bottom);
    for (size_t i = 0; i < x->n_ticks; i++) seg_d(&d, to_px(x, x->tick[i]), bottom, to_px(x, x->tick[i]), bottom + 5);
    segs_el(o, &d, AXIS_GREY);
    buf_free(&d);
    /* category names are cut (whole in a tooltip) to their spacing, so that neighbours never touch */
    double room = x->names && x->n_ticks ? fmax(fabs(x->p1 - x->p0) / (double)x->n_ticks - 4, 1) : 0;
    for (size_t i = 0; i < x->n_ticks; i++) {
        double px = to_px(x, x->tick[i]);
        buf_clear(&b);
        tick_label(&b, x, x->tick[i]);
        text_el(o, px, bottom + 19, NULL, TICK_SIZE, TICK_INK, "", buf_str(&b), room);
    }
    if (label && *label)
        text_el(o, (x->p0 + x->p1) / 2, label_y, NULL, LABEL_SIZE, "#333333", "", label, fabs(x->p1 - x->p0));
    buf_puts(o, "</g>\n");
    buf_free(&b);
}

#define HLINE_SIZE 11.5
#define HLINE_LABEL_MAX 150.0

/* Right edge of the plot area: the labels of reference lines sit in the margin beyond it. */
static double plot_right(int w, const tta_hline *h, size_t n) {
    double label = 0;
    for (size_t i = 0; i < n; i++)
        if (h[i].label) label = fmax(label, fmin(text_width(h[i].label, HLINE_SIZE), HLINE_LABEL_MAX) + 8);
    return w - PAD - fmax(label, 8);
}

/* Dashed horizontal reference lines across the plot area, labelled in the right margin, labels
 * at least a line apart; counts those outside the y range in *outside. */
static void draw_hlines(buf *o, const tta_hline *h, size_t n, const scale *y, double left, double right, int w,
                        size_t *outside) {
    double *py = callocCheck(n + 1, sizeof *py), *ly = callocCheck(n + 1, sizeof *ly);
    size_t *order = callocCheck(n + 1, sizeof *order), k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!placeable(y->kind, h[i].y) || !inside(y, h[i].y)) {
            (*outside)++;
            continue;
        }
        py[i] = ly[i] = to_px(y, h[i].y);
        if (h[i].label) order[k++] = i;
    }
    /* labels top to bottom, pushed down to a line below the previous one, then (if that ran off
     * the bottom) back up */
    for (size_t a = 1; a < k; a++)
        for (size_t b = a; b > 0 && py[order[b - 1]] > py[order[b]]; b--) {
            size_t t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    for (size_t a = 1; a < k; a++) ly[order[a]] = fmax(ly[order[a]], ly[order[a - 1]] + HLINE_SIZE + 2);
    if (k && ly[order[k - 1]] > y->p0 + 4) ly[order[k - 1]] = y->p0 + 4;
    for (size_t a = k - (k > 0); a-- > 0;) ly[order[a]] = fmin(ly[order[a]], ly[order[a + 1]] - HLINE_SIZE - 2);
    for (size_t i = 0; i < n; i++) {
        if (!placeable(y->kind, h[i].y) || !inside(y, h[i].y)) continue;
        buf_puts(o, "<g class=\"hline\">\n");
        line_el(o, left, py[i], right, py[i], "#444444", 1.3, "stroke-dasharray=\"6 4\"");
        if (h[i].label) text_el(o, right + 6, ly[i] + 4, "start", HLINE_SIZE, "#333333", "", h[i].label, w - right - 8);
        buf_puts(o, "</g>\n");
    }
    free(order);
    free(ly);
    free(py);
}

/* Adds "n what" to the note line when n > 0. */
static void note_count(buf *note, size_t n, const char *what) {
    if (n == 0) return;
    if (note->len) buf_puts(note, "; ");
    buf_printf(note, "%zu %s", n, what);
}

/* The y range of hlines joins the data's, so that a target is always visible. */
static void widen(double v, tta_axis_scale kind, double *lo, double *hi, int *have) {
    if (!placeable(kind, v)) return;
    if (!*have || v < *lo) *lo = v;
    if (!*have || v > *hi) *hi = v;
    *have = 1;
}

/* ---- x-y plots ------------------------------------------------------------------------------- */

static const char *series_color(const tta_series *s, size_t data_index) {
    return s->reference ? REFERENCE_GREY : palette[data_index % PALETTE_SIZE];
}

/* Whether point i of s can be drawn on these axes. */
static int point_ok(const tta_series *s, size_t i, tta_axis_scale xk, tta_axis_scale yk) {
    return placeable(xk, s->x[i]) && placeable(yk, s->y[i]);
}

/* A path's pen in tenths of a pixel: points after the first are written relative to the one
 * before ("l" dx dy), shorter than absolute ones; a point on the last one is left out. */
typedef struct {
    buf *o;
    long x, y; /* the last point, in tenths */
    int down;  /* a point is written since the last moveto */
} pen;

/* Tenths of a pixel of v (rounded as num rounds). */
static long tenths(double v) { return lround(v * 10); }

/* Appends t tenths as a number ("-14", "14.3"), after a space unless it starts with '-' or
 * follows a command letter. */
static void tenths_num(buf *o, long t, int sep) {
    if (sep && t >= 0) buf_putc(o, ' ');
    if (t < 0) buf_putc(o, '-');
    unsigned long a = (unsigned long)labs(t);
    if (a % 10) buf_printf(o, "%lu.%lu", a / 10, a % 10);
    else buf_printf(o, "%lu", a / 10);
}

/* Moves the pen to (x, y) px (absolute). */
static void pen_move(pen *p, double x, double y) {
    p->x = tenths(x);
    p->y = tenths(y);
    if (p->o->len && p->o->data[p->o->len - 1] != '"') buf_putc(p->o, ' ');
    buf_putc(p->o, 'M');
    tenths_num(p->o, p->x, 0);
    tenths_num(p->o, p->y, 1);
    p->down = 0;
}

/* Draws a line from the pen to (x, y) px; nothing when it rounds to where the pen is. */
static void pen_line(pen *p, double x, double y) {
    long tx = tenths(x), ty = tenths(y);
    if (tx == p->x && ty == p->y) return;
    if (!p->down) buf_putc(p->o, 'l');
    tenths_num(p->o, tx - p->x, p->down);
    tenths_num(p->o, ty - p->y, 1);
    p->x = tx;
    p->y = ty;
    p->down = 1;
}

/* Points as dots: one path ("m" x y, then each point relative to the one before, in tenths of a
 * pixel) whose every vertex carries a marker, a circle. About 8 bytes a point where a <circle>
 * element takes 48, and drawn the same: each dot on its own, so that overlapping dots darken as
 * before; a point on the one before is drawn again ("0 0"), never dropped. */
typedef struct {
    buf d;      /* the path data */
    buf circle; /* the same points as <circle> elements, for a series of few (DOTS_MIN) */
    double r;   /* the dots' radius (px) */
    long x, y;  /* the last point, in tenths */
    size_t n;   /* points added */
} dots;

/* A series of fewer points is drawn as <circle> elements, shorter than a marker and its path. */
#define DOTS_MIN 6

static void dots_add(dots *s, double x, double y) {
    long tx = tenths(x), ty = tenths(y);
    if (s->n == 0) buf_putc(&s->d, 'm'); /* relative to the origin: absolute; the pairs after it draw on */
    tenths_num(&s->d, tx - (s->n ? s->x : 0), s->n > 0);
    tenths_num(&s->d, ty - (s->n ? s->y : 0), 1);
    s->x = tx;
    s->y = ty;
    s->n++;
    if (s->n < DOTS_MIN) {
        buf_puts(&s->circle, "<circle class=\"point\" cx=\"");
        num(&s->circle, x);
        buf_puts(&s->circle, "\" cy=\"");
        num(&s->circle, y);
        buf_printf(&s->circle, "\" r=\"%g\"/>\n", s->r);
    }
}

/* The dots' markers a plot has defined: each a circle's look, its id "d<hash>-<index>" (the hash of
 * the plot's text before the first: two different plots on one page never share an id). */
#define MARKERS_MAX 32
typedef struct {
    const char *fill;
    double r, fill_opacity, stroke;
} marker_look;
typedef struct {
    char hash[7];
    size_t n;
    marker_look look[MARKERS_MAX];
} markers;

/* Writes the dots (if any) of the plot that begins at out->data[start] and frees them: few as
 * <circle> elements, else the path, its vertices marked by the plot's marker (in m) of a circle of
 * radius s->r, filled with fill at fill_opacity, outlined in white stroke px wide (defined here,
 * before its first use, when m has none such yet). */
static void dots_end(buf *out, size_t start, markers *m, dots *s, const char *fill, double fill_opacity,
                     double stroke) {
    assert(start <= out->len);
    size_t k = 0;
    while (k < m->n && !(m->look[k].fill == fill && m->look[k].r == s->r && m->look[k].fill_opacity == fill_opacity &&
                         m->look[k].stroke == stroke))
        k++;
    if (s->n && (s->n < DOTS_MIN || (k == m->n && k == MARKERS_MAX))) {
        buf_printf(out, "<g fill=\"%s\" fill-opacity=\"%g\" stroke=\"#ffffff\" stroke-width=\"%g\">\n", fill,
                   fill_opacity, stroke);
        buf_append(out, s->circle.data, s->circle.len);
        buf_puts(out, "</g>\n");
    } else if (s->n) {
        if (m->n == 0) {
            char hex[17];
            tta_hash_hex(tta_hash64(out->data + start, out->len - start, 0x7474612d646f7473ULL), hex);
            memcpy(m->hash, hex, 6);
            m->hash[6] = '\0';
        }
        if (k == m->n) {
            m->look[m->n++] = (marker_look){fill, s->r, fill_opacity, stroke};
            buf_printf(out, "<marker id=\"d%s-%zu\" markerUnits=\"userSpaceOnUse\" overflow=\"visible\">"
                            "<circle r=\"%g\" fill=\"%s\"", m->hash, k, s->r, fill);
            if (fill_opacity < 1) buf_printf(out, " fill-opacity=\"%g\"", fill_opacity);
            buf_printf(out, " stroke=\"#ffffff\" stroke-width=\"%g\"/></marker>\n", stroke);
        }
        buf_printf(out, "<path class=\"points\" marker-start=\"url(#d%s-%zu)\" " /* fill, stroke: LAYER_G */
                        "marker-mid=\"url(#d%s-%zu)\" marker-end=\"url(#d%s-%zu)\" d=\"%s\"/>\n",
                   m->hash, k, m->hash, k, m->hash, k, buf_str(&s->d));
    }
    buf_free(&s->d);
    buf_free(&s->circle);
    *s = (dots){.r = s->r};
}

/* A curve of more points than this is simplified before it is drawn (simplify); shorter ones (a
 * trend's rounds) keep every vertex. */
#define SIMPLIFY_MIN 16
/* How far (px) a simplified curve may pass from a point it leaves out: a third of a pixel, less
 * than anti-aliasing blurs. */
#define SIMPLIFY_PX 0.3

/* Ramer-Douglas-Peucker in place on the n points (x[i], y[i]) px: keeps the ends and every point
 * farther than SIMPLIFY_PX from the chord of the points kept around it, drops the others (those a
 * straight line drawn past them misses by less); returns how many are kept, in order. Curves of
 * fewer than SIMPLIFY_MIN points are kept whole. */
static size_t simplify(double *x, double *y, size_t n) {
    if (n < SIMPLIFY_MIN) return n;
    unsigned char *keep = callocCheck(n, 1);
    size_t *stack = mallocCheck(2 * n * sizeof *stack), top = 0;
    keep[0] = keep[n - 1] = 1;
    stack[top++] = 0;
    stack[top++] = n - 1;
    while (top) {
        size_t b = stack[--top], a = stack[--top];
        double dx = x[b] - x[a], dy = y[b] - y[a], len = hypot(dx, dy), far = -1;
        size_t at = a;
        for (size_t i = a + 1; i < b; i++) {
            double d = len > 0 ? fabs(dy * (x[i] - x[a]) - dx * (y[i] - y[a])) / len : hypot(x[i] - x[a], y[i] - y[a]);
            if (d > far) {
                far = d;
                at = i;
            }
        }
        if (far > SIMPLIFY_PX) {
            keep[at] = 1;
            assert(top + 4 <= 2 * n);
            stack[top++] = a;
            stack[top++] = at;
            stack[top++] = at;
            stack[top++] = b;
        }
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (keep[i]) {
            x[m] = x[i];
            y[m] = y[i];
            m++;
        }
    free(keep);
    free(stack);
    return m;
}

/* The band (y ± err) of a series as one polygon per run of drawable points, each edge simplified. */
static void draw_band(buf *o, const tta_series *s, const scale *x, const scale *y, const char *color) {
    double *ux = mallocCheck((s->n + 1) * sizeof *ux), *uy = mallocCheck((s->n + 1) * sizeof *uy);
    double *lx = mallocCheck((s->n + 1) * sizeof *lx), *ly = mallocCheck((s->n + 1) * sizeof *ly);
    size_t i = 0;
    while (i < s->n) {
        while (i < s->n && !(point_ok(s, i, x->kind, y->kind) && isfinite(s->err[i]))) i++;
        size_t j = i;
        while (j < s->n && point_ok(s, j, x->kind, y->kind) && isfinite(s->err[j])) j++;
        if (j > i) {
            size_t m = 0;
            for (size_t k = i; k < j; k++, m++) {
                double hi = s->y[k] + fabs(s->err[k]), lo = s->y[k] - fabs(s->err[k]);
                ux[m] = lx[m] = to_px(x, s->x[k]);
                uy[m] = to_px(y, placeable(y->kind, hi) ? hi : y->hi);
                /* on a log axis a band reaching 0 or below runs off the bottom */
                ly[m] = placeable(y->kind, lo) ? to_px(y, lo) : y->p0 + CLIP_SLACK;
            }
            size_t mu = simplify(ux, uy, m), ml = simplify(lx, ly, m);
            buf_printf(o, "<path class=\"band\" fill=\"%s\" d=\"", color); /* the rest from LAYER_G */
            pen p = {.o = o};
            pen_move(&p, ux[0], uy[0]);
            for (size_t k = 1; k < mu; k++) pen_line(&p, ux[k], uy[k]);
            for (size_t k = ml; k-- > 0;) pen_line(&p, lx[k], ly[k]);
            buf_puts(o, "Z\"/>\n");
        }
        i = j;
    }
    free(ux);
    free(uy);
    free(lx);
    free(ly);
}

/* The series as one path through its drawable points, simplified; a point that cannot be drawn
 * lifts the pen. */
static void draw_line(buf *o, const tta_series *s, const scale *x, const scale *y, const char *color) {
    buf_printf(o, "<path class=\"line\" stroke=\"%s\" stroke-width=\"%g\"%s d=\"", /* the rest from LAYER_G */
               color, s->reference ? 1.5 : 2.0, s->dashed ? " stroke-dasharray=\"6 4\"" : "");
    double *px = mallocCheck((s->n + 1) * sizeof *px), *py = mallocCheck((s->n + 1) * sizeof *py);
    pen p = {.o = o};
    size_t i = 0;
    while (i < s->n) {
        while (i < s->n && !point_ok(s, i, x->kind, y->kind)) i++;
        size_t m = 0;
        for (; i < s->n && point_ok(s, i, x->kind, y->kind); i++, m++) {
            px[m] = to_px(x, s->x[i]);
            py[m] = to_px(y, s->y[i]);
        }
        m = simplify(px, py, m);
        for (size_t k = 0; k < m; k++) {
            if (k) pen_line(&p, px[k], py[k]);
            else pen_move(&p, px[k], py[k]);
        }
    }
    free(px);
    free(py);
    buf_puts(o, "\"/>\n");
}

/* The groups of an x-y plot's layers, whose presentation their marks share (a page draws
 * thousands): bands, lines, points (dots: the marker's circle and the <circle> elements say their
 * own fill and stroke), labels. */
static const char *const LAYER_G[4] = {"<g class=\"bands\" fill-opacity=\"0.18\" stroke=\"none\">\n",
                                       "<g class=\"lines\" fill=\"none\" stroke-linejoin=\"round\">\n",
                                       "<g class=\"marks\" fill=\"none\" stroke=\"none\">\n", "<g>\n"};

/* tta_svg_xy, with a category x axis when categories is not NULL (n_categories > 0). */
static void xy_plot(buf *out, const tta_xy_plot *p, const char *const *categories, size_t n_categories) {
    assert(p && (p->n_series == 0 || p->series));
    size_t start = out->len; /* where the plot begins: its dots' id is a hash of what follows */
    int w = p->width > 0 ? p->width : DEFAULT_WIDTH;
    tta_axis_scale xk = categories ? TTA_AXIS_LINEAR : p->x.scale, yk = p->y.scale;

    /* Data ranges, and what cannot be drawn. */
    double xlo = 0, xhi = 0, ylo = 0, yhi = 0;
    int xhave = 0, yhave = 0;
    size_t unplaceable = 0, missing = 0;
    for (size_t s = 0; s < p->n_series; s++) {
        const tta_series *se = &p->series[s];
        assert(se->n == 0 || (se->x && se->y));
        for (size_t i = 0; i < se->n; i++) {
            if (isnan(se->x[i]) || isnan(se->y[i])) {
                missing++;
                continue;
            }
            if (!point_ok(se, i, xk, yk)) {
                unplaceable++;
                continue;
            }
            widen(se->x[i], xk, &xlo, &xhi, &xhave);
            widen(se->y[i], yk, &ylo, &yhi, &yhave);
            if (se->err && isfinite(se->err[i])) {
                widen(se->y[i] + fabs(se->err[i]), yk, &ylo, &yhi, &yhave);
                widen(se->y[i] - fabs(se->err[i]), yk, &ylo, &yhi, &yhave);
            }
        }
    }
    for (size_t i = 0; i < p->n_hlines; i++) widen(p->hlines[i].y, yk, &ylo, &yhi, &yhave);

    /* Legend. */
    legend_item *items = callocCheck(p->n_series + 1, sizeof *items);
    size_t n_items = 0, data_index = 0;
    for (size_t s = 0; s < p->n_series; s++) {
        const tta_series *se = &p->series[s];
        const char *color = series_color(se, se->same_color && data_index ? data_index - 1 : data_index);
        if (!se->reference && !se->same_color) data_index++;
        if (!se->name) continue;
        legend_item *it = &items[n_items++];
        it->label = se->name;
        it->color = color;
        it->width = se->reference ? 1.5 : 2.0;
        it->dashed = se->dashed;
        it->kind = se->marks == TTA_MARK_POINTS ? SWATCH_POINT
                   : se->marks == TTA_MARK_LINE_POINTS ? SWATCH_LINE_POINT
                   : se->err ? SWATCH_BAND
                             : SWATCH_LINE;
    }

    char more[32];
    int h = fit_legend(p->height, w, items, &n_items, more, sizeof more);
    double top = begin_plot(out, w, h, p->title, items, n_items);
    double bottom = h - PAD - 22 - (p->x.label ? LABEL_SIZE + 8 : 0) - 14; /* x labels, axis label, note */
    scale x, y;
    scale_fit(&y, &p->y, ylo, yhi, yhave, (bottom - top) / 55);
    y.p0 = bottom;
    y.p1 = top;
    double left = PAD + (p->y.label ? LABEL_SIZE + 10 : 0) + widest_tick_label(&y) + 10,
           right = plot_right(w, p->hlines, p->n_hlines);
    if (categories) scale_categories(&x, categories, n_categories);
    else scale_fit(&x, &p->x, xlo, xhi, xhave, (right - left) / 90);
    x.p0 = left;
    x.p1 = right;

    draw_y_axis(out, &y, left, right, p->y.label);
    draw_x_axis(out, &x, top, bottom, p->x.label, bottom + 40);

    /* Marks, clipped; bands under lines under points under labels. */
    size_t outside = 0, hidden_lines = 0;
    begin_clip(out, left, top, right, bottom);
    markers marks = {0};
    for (int layer = 0; layer < 4; layer++) {
        buf_puts(out, LAYER_G[layer]);
        data_index = 0;
        for (size_t s = 0; s < p->n_series; s++) {
            const tta_series *se = &p->series[s];
            const char *color = series_color(se, se->same_color && data_index ? data_index - 1 : data_index);
            if (!se->reference && !se->same_color) data_index++;
            int has_line = se->marks != TTA_MARK_POINTS, has_points = se->marks != TTA_MARK_LINE;
            /* markers on a line only while they can be told apart: 8 px apart on average */
            if (has_line && has_points && se->n > 1 && (right - left) / (double)se->n < 8) has_points = 0;
            if (layer == 0 && se->err) draw_band(out, se, &x, &y, color);
            if (layer == 1 && has_line && se->n) draw_line(out, se, &x, &y, color); /* n 0: a legend's key */
            /* a series' points are dots on one path (dots_add): a page draws thousands */
            dots pts = {.r = has_line ? 3.5 : 4.5};
            for (size_t i = 0; layer >= 2 && i < se->n; i++) {
                if (!point_ok(se, i, xk, yk)) continue;
                int in = inside(&x, se->x[i]) && inside(&y, se->y[i]);
                double px = to_px(&x, se->x[i]), py = to_px(&y, se->y[i]);
                if (layer == 2 && !in) {
                    if (has_points) outside++;
                    else hidden_lines++;
                }
                if (layer == 2 && has_points && in) dots_add(&pts, px, py);
                if (layer == 3 && in && se->labels && se->labels[i]) {
                    double lw = fmin(text_width(se->labels[i], 11), 160), tx = px + 7;
                    if (tx + lw > right) tx = px - 7 - lw; /* near the right edge: to the left of the point */
                    rect_el(out, tx - 2, py - 18, lw + 4, 14, "#ffffff", "class=\"label-bg\" fill-opacity=\"0.8\"");
                    text_el(out, tx, py - 7, "start", 11, "#333333", "class=\"label\"", se->labels[i], 160);
                }
            }
            dots_end(out, start, &marks, &pts, color, has_line ? 1 : 0.85, has_line ? 1 : 0.8);
        }
        buf_puts(out, "</g>\n");
    }
    end_clip(out);
    size_t hidden_hlines = 0;
    draw_hlines(out, p->hlines, p->n_hlines, &y, left, right, w, &hidden_hlines);

    buf note = {0};
    note_count(&note, missing, missing == 1 ? "point not shown: missing value" : "points not shown: missing values");
    note_count(&note, unplaceable, unplaceable == 1 ? "point not shown: not positive on a log axis"
                                                    : "points not shown: not positive on a log axis");
    note_count(&note, outside, outside == 1 ? "point outside the axis range" : "points outside the axis range");
    note_count(&note, hidden_lines, "line vertices outside the axis range");
    note_count(&note, hidden_hlines, hidden_hlines == 1 ? "reference line outside the axis range"
                                                        : "reference lines outside the axis range");
    if (!xhave && !yhave) text_el(out, (left + right) / 2, (top + bottom) / 2, "middle", 14, "#888888", "", "no data", 0);
    draw_note(out, h, &note);
    end_plot(out);
    buf_free(&note);
    free(items);
}

void tta_svg_xy(buf *out, const tta_xy_plot *p) { xy_plot(out, p, NULL, 0); }

void tta_svg_xy_categories(buf *out, const tta_xy_plot *p, const char *const *categories, size_t n_categories) {
    assert(categories && n_categories > 0);
    xy_plot(out, p, categories, n_categories);
}

/* ---- categorical plots (bars, strips) -------------------------------------------------------- */

/* Splits name into at most 3 lines no wider than max_px, breaking after ' ', '/', '_' or '-'
 * (entry names are paths of underscored words); returns the number of lines (malloc'd into
 * lines), or 0 when it does not fit that way. */
static int wrap_label(const char *name, double size, double max_px, char *lines[3]) {
    buf clean = {0};
    tta_text_clean(&clean, name);
    const char *s = buf_str(&clean);
    int n = 0;
    while (*s && n < 3) {
        const char *end = s, *last_break = NULL;
        double w = 0;
        while (*end) {
            w += char_width(end, size);
            if (w > max_px) break;
            end++;
            while (((unsigned char)*end & 0xC0) == 0x80) end++;
            if (strchr(" /_-", end[-1])) last_break = end;
        }
        if (*end && !last_break) break; /* a piece too long for a line */
        if (*end) end = last_break;
        size_t len = (size_t)(end - s);
        while (len && s[len - 1] == ' ') len--;
        lines[n++] = strndupCheck(s, len);
        s = end;
        while (*s == ' ') s++;
    }
    int ok = *s == '\0';
    buf_free(&clean);
    if (!ok)
        while (n) free(lines[--n]);
    return n;
}

#define CATEGORY_LINE 14.0
#define TURNED_MAX 170.0 /* longest turned category name, pixels */

/* How category names sit under their bands: 0 horizontal (on up to `lines` lines), else the angle
 * they are turned by: 35° while neighbours stay a line apart (band * sin 35° >= a line), else 90°. */
static int category_angle(const char *const *names, size_t n, double band, int *lines) {
    double max_line = band - 8;
    int turn = 0;
    *lines = 1;
    for (size_t i = 0; i < n; i++) {
        if (text_width(names[i], TICK_SIZE) <= max_line) continue;
        char *wrapped[3];
        int k = wrap_label(names[i], TICK_SIZE, max_line, wrapped);
        if (k == 0) turn = 1;
        if (k > *lines) *lines = k;
        while (k) free(wrapped[--k]);
    }
    if (!turn) return 0;
    return band * 0.5736 >= CATEGORY_LINE + 1 ? 35 : 90;
}

/* Category names under a categorical x axis, centred on their bands: on one line when they fit,
 * else wrapped into up to three lines, else turned (category_angle) and cut in the middle.
 * Returns the height they take below the axis; draws them only when draw is set. */
static double category_labels(buf *o, const char *const *names, size_t n, double left, double band, double y0,
                              int draw) {
    int lines, angle = category_angle(names, n, band, &lines);
    double widest = 0, max_line = band - 8;
    for (size_t i = 0; i < n; i++) widest = fmax(widest, text_width(names[i], TICK_SIZE));
    double sin_a = angle == 35 ? 0.5736 : 1, cos_a = angle == 35 ? 0.8192 : 0;
    if (!draw) return angle ? fmin(widest, TURNED_MAX) * sin_a + 22 : 8 + CATEGORY_LINE * lines;
    buf attrs = {0};
    /* the turned names' anchor, said once; upright ones turned once too, each placed in the turned
     * frame (rotate(-90) takes (x, y) to (y, -x)) */
    if (angle == 90) buf_puts(o, "<g text-anchor=\"end\" transform=\"rotate(-90)\">\n");
    else if (angle) buf_puts(o, "<g text-anchor=\"end\">\n");
    for (size_t i = 0; i < n; i++) {
        double cx = left + band * (i + 0.5);
        if (angle) {
            /* anchored at its end just under the axis; a 90° name hangs centred on its band */
            double ax = angle == 35 ? cx + 4 : cx + 4.3, ay = angle == 35 ? y0 + 16 : y0 + 10;
            double room = cos_a > 0 ? fmin(TURNED_MAX, (cx - PAD / 2) / cos_a) : TURNED_MAX;
            if (angle == 90) {
                text_el_cut(o, -ay, ax, NULL, TICK_SIZE, TICK_INK, "", names[i], room, 1);
                if (i + 1 == n) buf_puts(o, "</g>\n");
                continue;
            }
            buf_clear(&attrs);
            buf_puts(&attrs, "transform=\"translate(");
            num(&attrs, ax);
            buf_putc(&attrs, ' ');
            num(&attrs, ay);
            buf_printf(&attrs, ")rotate(-%d)\"", angle);
            text_el_cut(o, NAN, NAN, "end", TICK_SIZE, TICK_INK, buf_str(&attrs), names[i], room, 1);
            if (i + 1 == n) buf_puts(o, "</g>\n");
            continue;
        }
        char *wrapped[3];
        int k = text_width(names[i], TICK_SIZE) <= max_line ? 0 : wrap_label(names[i], TICK_SIZE, max_line, wrapped);
        if (k == 0) {
            text_el(o, cx, y0 + 19, NULL, TICK_SIZE, TICK_INK, "", names[i], 0);
            continue;
        }
        buf_puts(o, "<text x=\"");
        num(o, cx);
        buf_puts(o, "\" y=\"");
        num(o, y0 + 19);
        buf_puts(o, "\">"); /* size, colour and anchor from the axis's <g> */
        for (int l = 0; l < k; l++) {
            buf_puts(o, "<tspan x=\"");
            num(o, cx);
            buf_printf(o, "\" dy=\"%g\">", l ? CATEGORY_LINE : 0.0);
            tta_xml_escape(o, wrapped[l]);
            buf_puts(o, "</tspan>");
            free(wrapped[l]);
        }
        buf_puts(o, "</text>\n");
    }
    buf_free(&attrs);
    return 0;
}

/* Default width of a categorical plot: 760 pixels, or more so that each of n categories gets at
 * least min_band pixels (at most 3200 in all). */
static int categorical_width(size_t n, double min_band) {
    double w = 150 + n * min_band;
    return w <= DEFAULT_WIDTH ? DEFAULT_WIDTH : w >= 3200 ? 3200 : (int)ceil(w);
}

/* Common frame of the categorical plots: y scale from [lo, hi], category axis; returns the plot
 * area through the pointers. */
static void categorical_frame(buf *out, int w, int h, const char *title, const legend_item *items, size_t n_items,
                              const tta_axis *ya, double lo, double hi, int have, const char *const *names,
                              size_t n, const char *x_label, const tta_hline *hlines, size_t n_hlines, scale *y,
                              double *left, double *right, double *top, double *bottom) {
    *top = begin_plot(out, w, h, title, items, n_items);
    /* The bottom margin depends on whether labels rotate, which depends on the band width, which
     * depends on the left margin, which depends on the y ticks, which depend on the height: settle
     * it with a first guess of the left margin. */
    double guess_left = PAD + (ya->label ? LABEL_SIZE + 10 : 0) + 50, r = plot_right(w, hlines, n_hlines);
    double band = n ? (r - guess_left) / n : r - guess_left;
    double labels_h = category_labels(out, names, n, guess_left, band, 0, 0);
    *bottom = h - PAD - labels_h - (x_label ? LABEL_SIZE + 8 : 0) - 14;
    scale_fit(y, ya, lo, hi, have, (*bottom - *top) / 55);
    y->p0 = *bottom;
    y->p1 = *top;
    *left = PAD + (ya->label ? LABEL_SIZE + 10 : 0) + widest_tick_label(y) + 10;
    *right = r;
    draw_y_axis(out, y, *left, *right, ya->label);
    band = n ? (*right - *left) / n : *right - *left;
    buf_puts(out, "<g class=\"x-axis\"" AXIS_G_ATTRS " text-anchor=\"middle\">\n"); /* its labels' anchor */
    line_el(out, *left, *bottom, *right, *bottom, AXIS_GREY, 1, "");
    category_labels(out, names, n, *left, band, *bottom, 1);
    if (x_label) text_el(out, (*left + *right) / 2, h - PAD - 14 - 2, NULL, LABEL_SIZE, "#333333", "", x_label, 0);
    buf_puts(out, "</g>\n");
}

/* A bar's value label: v with the decimals and the suffix. */
static void value_text(buf *b, double v, int decimals, const char *suffix) {
    buf_printf(b, "%.*f%s", decimals > 0 ? decimals : 0, v, suffix ? suffix : "");
}

void tta_svg_bars(buf *out, const tta_bar_plot *p) {
    assert(p && (p->n_categories == 0 || (p->categories && p->values)) && (p->n_series == 0 || p->series_names));
    assert(p->y.scale == TTA_AXIS_LINEAR);
    size_t nc = p->n_categories, ns = p->n_series;
    int w = p->width > 0 ? p->width : categorical_width(nc, p->stacked ? 28 : fmax(28, 14.0 * ns + 8));
    double lo = 0, hi = 0;
    int have = 1;
    size_t missing = 0;
    for (size_t c = 0; c < nc; c++) {
        double total = 0;
        for (size_t s = 0; s < ns; s++) {
            double v = p->values[c * ns + s];
            if (!isfinite(v)) {
                missing++;
                continue;
            }
            assert(!p->stacked || v >= 0);
            total += v;
            if (!p->stacked) widen(v, TTA_AXIS_LINEAR, &lo, &hi, &have);
        }
        if (p->stacked) widen(total, TTA_AXIS_LINEAR, &lo, &hi, &have);
    }
    for (size_t i = 0; i < p->n_hlines; i++) widen(p->hlines[i].y, TTA_AXIS_LINEAR, &lo, &hi, &have);
    if (p->label_values && p->y.min >= p->y.max) hi += (hi - lo) * 0.08; /* room for the labels */
    tta_axis ya = p->y;
    ya.include_zero = 1;

    legend_item *items = callocCheck(ns + 1, sizeof *items);
    for (size_t s = 0; s < ns; s++)
        items[s] = (legend_item){p->series_names[s], SWATCH_BOX, palette[s % PALETTE_SIZE], 0, 0};
    size_t n_items = ns;
    char more[32];
    int h = fit_legend(p->height, w, items, &n_items, more, sizeof more);
    scale y;
    double left, right, top, bottom;
    categorical_frame(out, w, h, p->title, items, n_items, &ya, lo, hi, have, p->categories, nc, p->x_label, p->hlines,
                      p->n_hlines, &y, &left, &right, &top, &bottom);
    double band = nc ? (right - left) / nc : 0;
    double group = band * (p->stacked ? 0.55 : 0.78);
    double bar_w = p->stacked ? fmin(group, 90) : fmin(group / (ns ? ns : 1), 60);
    double zero = to_px(&y, fmax(y.lo, fmin(0, y.hi)));
    buf label = {0};
    size_t outside = 0, hidden_hlines = 0;
    draw_hlines(out, p->hlines, p->n_hlines, &y, left, right, w, &hidden_hlines); /* under the bars */
    begin_clip(out, left, top, right, bottom);
    for (size_t c = 0; c < nc; c++) {
        double cx = left + band * (c + 0.5);
        double base = 0;
        buf_puts(out, "<g class=\"category\">\n");
        for (size_t s = 0; s < ns; s++) {
            double v = p->values[c * ns + s];
            double bx = p->stacked ? cx - bar_w / 2 : cx - bar_w * ns / 2 + bar_w * s;
            if (!isfinite(v)) {
                if (!p->stacked) text_el(out, bx + bar_w / 2, zero - 4, "middle", 10, "#888888", "class=\"missing\"", "n/a", 0);
                continue;
            }
            double v0 = p->stacked ? base : 0, v1 = p->stacked ? base + v : v;
            base = v1;
            if (!inside(&y, v1) || !inside(&y, v0)) outside++;
            double y0 = to_px(&y, fmax(y.lo, fmin(v0, y.hi))), y1 = to_px(&y, fmax(y.lo, fmin(v1, y.hi)));
            double ry = fmin(y0, y1), rh = fabs(y1 - y0);
            const char *fill = palette[s % PALETTE_SIZE];
            buf_clear(&label);
            value_text(&label, v, p->value_decimals, p->value_suffix);
            buf_puts(out, "<g>");
            buf_puts(out, "<title>");
            tta_xml_escape(out, p->categories[c]);
            buf_puts(out, ", ");
            tta_xml_escape(out, p->series_names[s]);
            buf_puts(out, ": ");
            tta_xml_escape(out, buf_str(&label));
            buf_puts(out, "</title>\n");
            rect_el(out, p->stacked ? bx : bx + 1, ry, p->stacked ? bar_w : bar_w - 2, rh, fill,
                    p->stacked ? "class=\"segment\" stroke=\"#ffffff\" stroke-width=\"1\"" : "class=\"bar\"");
            buf_puts(out, "</g>\n");
            if (!p->label_values) continue;
            double lw = text_width(buf_str(&label), 10.5);
            if (p->stacked) {
                if (rh >= 16 && lw <= bar_w - 6)
                    text_el(out, cx, ry + rh / 2 + 4, "middle", 10.5, ink_on(fill), "class=\"value\"", buf_str(&label), 0);
            } else if (lw <= bar_w + 8) {
                double ty = v >= 0 ? ry - 4 : ry + rh + 12;
                /* a backing keeps the label readable where a reference line crosses it */
                rect_el(out, bx + bar_w / 2 - lw / 2 - 2, ty - 9.5, lw + 4, 12, "#ffffff",
                        "class=\"value-bg\" fill-opacity=\"0.85\"");
                text_el(out, bx + bar_w / 2, ty, "middle", 10.5, "#333333", "class=\"value\"", buf_str(&label), 0);
            } else { /* too narrow for the label: write it upwards along the bar */
                buf t = {0};
                double tx = bx + bar_w / 2 + 3.5, ty = v >= 0 ? ry - 4 : ry + rh + 4;
                buf_puts(&t, "class=\"value\" transform=\"rotate(-90 ");
                num(&t, tx);
                buf_putc(&t, ' ');
                num(&t, ty);
                buf_puts(&t, ")\"");
                char *attrs = buf_take(&t);
                text_el(out, tx, ty, v >= 0 ? "start" : "end", 10.5, "#333333", attrs, buf_str(&label), 0);
                free(attrs);
            }
        }
        if (p->stacked && p->label_values && ns > 0) {
            buf_clear(&label);
            value_text(&label, base, p->value_decimals, p->value_suffix);
            text_el(out, cx, to_px(&y, fmin(base, y.hi)) - 5, "middle", 11, INK, "class=\"value total\" font-weight=\"bold\"",
                    buf_str(&label), 0);
        }
        buf_puts(out, "</g>\n");
    }
    end_clip(out);
    buf note = {0};
    note_count(&note, missing, missing == 1 ? "value missing (n/a)" : "values missing (n/a)");
    note_count(&note, outside, outside == 1 ? "bar cut at the axis range" : "bars cut at the axis range");
    note_count(&note, hidden_hlines, "reference lines outside the axis range");
    if (nc == 0) text_el(out, (left + right) / 2, (top + bottom) / 2, "middle", 14, "#888888", "", "no data", 0);
    draw_note(out, h, &note);
    end_plot(out);
    buf_free(&note);
    buf_free(&label);
    free(items);
}

/* Sideways offset of the i-th dot of a strip, in [-0.5, 0.5): the golden-ratio sequence spreads any
 * number of dots evenly, the first in the middle, and is the same on every run. */
static double jitter(size_t i) {
    double v = 0.5 + (double)i * 0.6180339887498949;
    return v - floor(v) - 0.5;
}

void tta_svg_strip(buf *out, const tta_strip_plot *p) {
    assert(p && (p->n_groups == 0 || p->groups));
    size_t start = out->len; /* where the plot begins: its dots' id is a hash of what follows */
    size_t ng = p->n_groups;
    /* 17 px a strip: a round's 60 entries of a benchmark fit a page 1280 px wide (their names
     * turned upright) */
    int w = p->width > 0 ? p->width : categorical_width(ng, 17);
    tta_axis_scale yk = p->y.scale;
    double lo = 0, hi = 0;
    int have = 0;
    size_t missing = 0, unplaceable = 0;
    const char **names = callocCheck(ng + 1, sizeof *names);
    for (size_t g = 0; g < ng; g++) {
        names[g] = p->groups[g].name ? p->groups[g].name : "";
        for (size_t i = 0; i < p->groups[g].n; i++) {
            double v = p->groups[g].values[i];
            if (isnan(v)) missing++;
            else if (!placeable(yk, v)) unplaceable++;
            else widen(v, yk, &lo, &hi, &have);
        }
    }
    for (size_t i = 0; i < p->n_hlines; i++) widen(p->hlines[i].y, yk, &lo, &hi, &have);

    legend_item items[2] = {{p->value_name ? p->value_name : "value", SWATCH_POINT, palette[0], 0, 0},
                            {"mean", SWATCH_MEAN, INK, 2.5, 0}};
    size_t n_items = 2;
    char more[32];
    int h = fit_legend(p->height, w, items, &n_items, more, sizeof more);
    scale y;
    double left, right, top, bottom;
    categorical_frame(out, w, h, p->title, items, n_items, &p->y, lo, hi, have, names, ng, p->x_label, p->hlines,
                      p->n_hlines, &y, &left, &right, &top, &bottom);
    double band = ng ? (right - left) / ng : 0, spread = fmin(band * 0.26, 22), half_mean = fmin(band * 0.34, 28);
    size_t outside = 0;
    begin_clip(out, left, top, right, bottom);
    /* every run a dot on one path (dots_add: a round's page draws thousands), then each group's
     * mean a horizontal stroke of one path over them */
    dots pts = {.r = 4.5};
    buf means = {0};
    for (size_t g = 0; g < ng; g++) {
        const tta_strip_group *gr = &p->groups[g];
        double cx = left + band * (g + 0.5), sum = 0;
        size_t n = 0;
        for (size_t i = 0; i < gr->n; i++) {
            double v = gr->values[i];
            if (!placeable(yk, v)) continue;
            sum += v;
            n++;
            if (!inside(&y, v)) {
                outside++;
                continue;
            }
            dots_add(&pts, cx + 2 * spread * jitter(i), to_px(&y, v));
        }
        double mean = n ? sum / n : NAN; /* on a log axis too: the mean of the values, not of their logs */
        if (n && inside(&y, mean)) {
            buf_putc(&means, 'M');
            num(&means, cx - half_mean);
            buf_putc(&means, ' ');
            num(&means, to_px(&y, mean));
            buf_putc(&means, 'h');
            num(&means, 2 * half_mean);
        }
    }
    buf_puts(out, LAYER_G[2]);
    markers marks = {0};
    dots_end(out, start, &marks, &pts, palette[0], 0.75, 0.8);
    buf_puts(out, "</g>\n");
    if (means.len)
        buf_printf(out, "<path class=\"mean\" fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\" "
                        "stroke-linecap=\"round\" d=\"%s\"/>\n", INK, buf_str(&means));
    buf_free(&means);
    end_clip(out);
    size_t hidden_hlines = 0;
    draw_hlines(out, p->hlines, p->n_hlines, &y, left, right, w, &hidden_hlines);
    buf note = {0};
    note_count(&note, missing, missing == 1 ? "value not shown: missing" : "values not shown: missing");
    note_count(&note, unplaceable, unplaceable == 1 ? "value not shown: not positive on a log axis"
                                                    : "values not shown: not positive on a log axis");
    note_count(&note, outside, outside == 1 ? "value outside the axis range" : "values outside the axis range");
    note_count(&note, hidden_hlines, "reference lines outside the axis range");
    if (!have) text_el(out, (left + right) / 2, (top + bottom) / 2, "middle", 14, "#888888", "", "no data", 0);
    draw_note(out, h, &note);
    end_plot(out);
    buf_free(&note);
    free(names);
}
