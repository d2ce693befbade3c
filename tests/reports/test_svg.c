/* test_svg.c: the SVG plots (reports/render.h): every kind of plot on realistic data parsed as
 * XML by xmllint (libxml2-utils) with its marks counted by XPath; nice ticks; escaping; what
 * cannot be drawn is noted; same input, same bytes. With TTA_SVG_OUT=DIR the plots are kept in
 * DIR for a person to look at. Skips (77) after the in-process checks when xmllint is absent. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "reports/render.h"
#include "tta_test.h"

static int have_xmllint;
static char tmpdir[256];

/* Occurrences of needle in s. */
static int count(const char *s, const char *needle) {
    int n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* Writes the SVG to TMP/name.svg (and to $TTA_SVG_OUT/name.svg when set); returns the path. */
static const char *save(const char *name, const char *svg) {
    static char path[512];
    const char *keep = getenv("TTA_SVG_OUT");
    if (keep && *keep) {
        snprintf(path, sizeof path, "%s/%s.svg", keep, name);
        FILE *f = fopen(path, "w");
        if (f) {
            fputs(svg, f);
            fclose(f);
        }
    }
    snprintf(path, sizeof path, "%s/%s.svg", tmpdir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(svg, f);
        fclose(f);
    }
    return path;
}

/* 1 when xmllint parses the file as well-formed XML. */
static int well_formed(const char *path) {
    char cmd[700];
    snprintf(cmd, sizeof cmd, "xmllint --noout '%s'", path);
    return system(cmd) == 0;
}

/* XPath count(...) of svg:<element> with the class, from xmllint; -1 on failure. */
static int xml_count(const char *path, const char *element, const char *cls) {
    char cmd[900], out[64] = "";
    snprintf(cmd, sizeof cmd,
             "xmllint --xpath \"count(//*[local-name()='%s'%s%s%s])\" '%s' 2>/dev/null", element,
             cls ? " and contains(concat(' ', @class, ' '), ' " : "", cls ? cls : "", cls ? " ')" : "", path);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    if (!fgets(out, sizeof out, p)) out[0] = '\0';
    int rc = pclose(p);
    return rc == 0 && out[0] ? atoi(out) : -1;
}

/* The points drawn: <circle class="point"> elements and the vertices of the dots' paths
 * (class="points": "m x y" then a pair per further point). */
static int count_points(const char *svg) {
    int n = count(svg, "class=\"point\"");
    for (const char *p = strstr(svg, "class=\"points\""); p; p = strstr(p + 1, "class=\"points\"")) {
        const char *d = strstr(p, " d=\"m");
        if (!d) return -1;
        int numbers = 0;
        for (char *q = (char *)d + 5; *q && *q != '"';) {
            char *end;
            strtod(q, &end);
            if (end == q) {
                q++;
                continue;
            }
            numbers++;
            q = end;
        }
        n += numbers / 2;
    }
    return n;
}

/* The strokes of a strip plot's mean path (class="mean": "M x y h w" per group). */
static int count_means(const char *svg) {
    const char *p = strstr(svg, "<path class=\"mean\"");
    if (!p) return 0;
    const char *d = strstr(p, " d=\""), *end = d ? strchr(d + 4, '"') : NULL;
    int n = 0;
    for (const char *q = d; q && q < end; q++) n += *q == 'h';
    return n;
}

/* Checks shared by every plot: one root, the SVG namespace, no external reference, no script;
 * the only ids are the dots' markers, "d<hash>-<k>", and every url() names one of them. */
static void check_standalone(const char *svg, const char *name) {
    static const char root[] = "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" ";
    CHECK(strncmp(svg, root, sizeof root - 1) == 0);
    CHECK(count(svg, "http") == 1); /* only the namespace name */
    CHECK(strstr(svg, "href") == NULL && strstr(svg, "<script") == NULL);
    CHECK(count(svg, " id=") == count(svg, "<marker id=\"d"));
    for (const char *u = strstr(svg, "url("); u; u = strstr(u + 1, "url(")) {
        char id[64] = "", def[96];
        CHECK(sscanf(u, "url(#%63[^)])", id) == 1);
        snprintf(def, sizeof def, "<marker id=\"%s\"", id);
        CHECK(strstr(svg, def) != NULL && strstr(svg, def) < u);
    }
    size_t n = strlen(svg);
    CHECK(n > 7 && strcmp(svg + n - 7, "</svg>\n") == 0);
    const char *path = save(name, svg);
    if (have_xmllint) CHECK(well_formed(path));
}

/* Quality curves: three entries' mean ± std per epoch, a target line, one entry with a gap. */
TEST(quality_curves_with_bands_and_target) {
    enum { N = 12 };
    double epochs[N], q[3][N], sd[3][N];
    for (int i = 0; i < N; i++) {
        epochs[i] = i + 1;
        for (int s = 0; s < 3; s++) {
            q[s][i] = 0.76 * (1 - exp(-(i + 1) / (2.0 + s))) + 0.01 * s;
            sd[s][i] = 0.02 / (1 + i * 0.3);
        }
    }
    q[2][5] = NAN; /* an evaluation that was not logged: the line and band break there */
    tta_series series[3] = {
        {.name = "NVIDIA dgxa100 (mxnet)", .x = epochs, .y = q[0], .n = N, .err = sd[0]},
        {.name = "Google tpu-v3-512 (tensorflow)", .x = epochs, .y = q[1], .n = N, .err = sd[1]},
        {.name = "Intel <cpu> & \"friends\"", .x = epochs, .y = q[2], .n = N, .err = sd[2], .marks = TTA_MARK_LINE_POINTS},
    };
    tta_hline target = {0.759, "target 75.9%"};
    tta_xy_plot p = {.title = "ResNet-50 top-1 accuracy per epoch (mean ± std over runs)",
                     .x = {.label = "epoch"},
                     .y = {.label = "top-1 accuracy"},
                     .series = series,
                     .n_series = 3,
                     .hlines = &target,
                     .n_hlines = 1};
    buf b = {0};
    tta_svg_xy(&b, &p);
    const char *svg = buf_str(&b);
    check_standalone(svg, "quality");
    CHECK(count(svg, "class=\"line\"") == 3);
    CHECK(count(svg, "class=\"band\"") == 4);  /* series 3 is cut in two by its missing point */
    CHECK(count_points(svg) == N - 1);
    CHECK(count(svg, "class=\"hline\"") == 1);
    CHECK(strstr(svg, "Intel &lt;cpu&gt; &amp; &quot;friends&quot;") != NULL);
    CHECK(strstr(svg, ">target 75.9%</text>") != NULL);
    CHECK(strstr(svg, "1 point not shown: missing value") != NULL);
    /* nice ticks: 0.1 .. 0.8 by 0.1 on y (the data start near 0.3), 1 .. 12 on x */
    CHECK(strstr(svg, ">0.8</text>") != NULL && strstr(svg, ">0.1</text>") != NULL && strstr(svg, ">0.0</text>") == NULL);
    CHECK(strstr(svg, ">12</text>") != NULL && strstr(svg, ">2</text>") != NULL);
    const char *path = save("quality", svg);
    if (have_xmllint) {
        CHECK(xml_count(path, "path", "line") == 3);
        CHECK(xml_count(path, "circle", "point") + xml_count(path, "path", "points") >= 1);
        CHECK(xml_count(path, "g", "legend") == 1);
    }
    /* The same input gives the same bytes. */
    buf again = {0};
    tta_svg_xy(&again, &p);
    CHECK_STR(buf_str(&again), svg);
    buf_free(&again);
    buf_free(&b);
}

/* Strip plot: TTA per run for four entries, one with an unreached run (NaN), one with ties. */
TEST(strip_plot_dots_and_means) {
    double a[] = {28.1, 28.9, 27.6, 29.4, 28.3}, b_[] = {75.2, 80.1, NAN, 77.7, 79.0, 81.5},
           c[] = {12.0, 12.0, 12.0, 12.0}, d[] = {44.5};
    tta_strip_group groups[] = {{"v0.7/NVIDIA/dgxa100_ngc20.06_mxnet/resnet", a, 5},
                                {"v0.7/Google/tpu-v3-32/resnet", b_, 6},
                                {"v0.7/Alibaba/ali-cluster/resnet", c, 4},
                                {"v0.6/Intel/clx-8260l/resnet", d, 1}};
    tta_hline official = {60, "60 min"};
    tta_strip_plot p = {.title = "Time to accuracy of each run",
                        .y = {.label = "time to accuracy (min)", .include_zero = 1},
                        .value_name = "run",
                        .groups = groups,
                        .n_groups = 4,
                        .hlines = &official,
                        .n_hlines = 1};
    buf b = {0};
    tta_svg_strip(&b, &p);
    const char *svg = buf_str(&b);
    check_standalone(svg, "strip");
    CHECK(count_points(svg) == 15);
    CHECK(count(svg, "class=\"point\"") == 0); /* 15 are dots on one path, not circles */
    CHECK(count_means(svg) == 4);
    CHECK(strstr(svg, "1 value not shown: missing") != NULL);
    /* Ties are spread sideways: the four 12.0 minute runs (the third group's, after 5 and 5 drawn)
     * sit at four different x. The path's first point is absolute, each next relative. */
    const char *dots = strstr(svg, "class=\"points\"");
    dots = dots ? strstr(dots, " d=\"m") : NULL;
    CHECK(dots != NULL);
    if (dots) {
        double xs[15], x = 0;
        char *q = (char *)dots + 6;
        for (int k = 0; k < 15; k++) {
            x += strtod(q, &q); /* x, then y */
            strtod(q, &q);
            xs[k] = x;
        }
        for (int i = 10; i < 14; i++)
            for (int j = i + 1; j < 14; j++) CHECK(fabs(xs[i] - xs[j]) > 2);
    }
    if (have_xmllint) {
        const char *path = save("strip", svg);
        CHECK(xml_count(path, "path", "points") == 1);
        CHECK(xml_count(path, "marker", NULL) == 1);
        CHECK(xml_count(path, "path", "mean") == 1);
    }
    buf_free(&b);
}

/* Scaling: log2 accelerators vs log2 speedup, two systems and the ideal line. */
TEST(scaling_plot_log2) {
    double acc[] = {8, 16, 32, 64, 128, 256, 512}, sp1[] = {1, 1.95, 3.8, 7.1, 13.0, 22.5, 36.0},
           sp2[] = {1, 1.9, 3.5, 6.2, 10.1, 15.4, NAN}, ideal_x[] = {8, 512}, ideal_y[] = {1, 64};
    tta_series series[] = {
        {.name = "ideal (linear)", .x = ideal_x, .y = ideal_y, .n = 2, .reference = 1, .dashed = 1},
        {.name = "NVIDIA DGX A100", .x = acc, .y = sp1, .n = 7, .marks = TTA_MARK_LINE_POINTS},
        {.name = "Google TPU v3", .x = acc, .y = sp2, .n = 7, .marks = TTA_MARK_LINE_POINTS},
    };
    tta_xy_plot p = {.title = "Scaling of time to accuracy",
                     .x = {.label = "accelerators", .scale = TTA_AXIS_LOG2},
                     .y = {.label = "speedup over 8 accelerators (×)", .scale = TTA_AXIS_LOG2},
                     .series = series,
                     .n_series = 3};
    buf b = {0};
    tta_svg_xy(&b, &p);
    const char *svg = buf_str(&b);
    check_standalone(svg, "scaling");
    CHECK(count_points(svg) == 13);
    CHECK(count(svg, "class=\"line\"") == 3);
    CHECK(strstr(svg, "stroke-dasharray=\"6 4\"") != NULL);
    CHECK(strstr(svg, ">512</text>") != NULL && strstr(svg, ">64</text>") != NULL && strstr(svg, ">1</text>") != NULL);
    buf_free(&b);
}

/* Grouped bars: throughput speedup vs TTA speedup per entry, labelled, with a missing value. */
TEST(grouped_bars_labelled) {
    const char *cats[] = {"resnet", "bert", "maskrcnn", "ssd", "transformer"};
    const char *series[] = {"throughput speedup", "TTA speedup"};
    double v[] = {3.1, 2.4, 4.0, 3.6, 2.2, NAN, 3.3, 2.9, 1.8, 0.9};
    tta_hline one = {1, "1× (no speedup)"};
    tta_bar_plot p = {.title = "A100 over V100: throughput vs time to accuracy",
                      .y = {.label = "speedup (×)"},
                      .x_label = "benchmark",
                      .categories = cats,
                      .n_categories = 5,
                      .series_names = series,
                      .n_series = 2,
                      .values = v,
                      .label_values = 1,
                      .value_decimals = 1,
                      .value_suffix = "×",
                      .hlines = &one,
                      .n_hlines = 1};
    buf b = {0};
    tta_svg_bars(&b, &p);
    const char *svg = buf_str(&b);
    check_standalone(svg, "bars");
    CHECK(count(svg, "class=\"bar\"") == 9);
    CHECK(count(svg, "class=\"value\"") == 9);
    CHECK(count(svg, "class=\"missing\"") == 1);
    CHECK(strstr(svg, ">4.0×</text>") != NULL && strstr(svg, ">0.9×</text>") != NULL);
    CHECK(strstr(svg, "1 value missing (n/a)") != NULL);
    if (have_xmllint) {
        const char *path = save("bars", svg);
        CHECK(xml_count(path, "rect", "bar") == 9);
        CHECK(xml_count(path, "text", "value") == 9);
    }
    buf_free(&b);
}

/* Roofline: log10 axes, two roofs, one point per layer with its name; a zero-intensity layer
 * cannot be placed and is noted. */
TEST(roofline_log10) {
    double peak = 15.7e12, bw = 900e9, ridge = peak / bw;
    double mem_x[] = {0.1, ridge}, mem_y[] = {0.1 * bw, peak}, top_x[] = {ridge, 1000}, top_y[] = {peak, peak};
    double ai[] = {1.2, 45, 180, 0.4, 12, 0}, perf[] = {0.9e12, 11e12, 13.9e12, 0.3e12, 7.5e12, 1e12};
    const char *names[] = {"bn1", "conv2_1", "conv5_3", "relu", "fc1000", "embedding"};
    tta_series series[] = {
        {.name = "memory roof (900 GB/s)", .x = mem_x, .y = mem_y, .n = 2, .reference = 1, .dashed = 1},
        {.name = "compute roof (15.7 TFLOP/s)", .x = top_x, .y = top_y, .n = 2, .reference = 1},
        {.name = "layers", .x = ai, .y = perf, .n = 6, .labels = names, .marks = TTA_MARK_POINTS},
    };
    tta_xy_plot p = {.title = "Roofline of ResNet-50 layers on V100",
                     .x = {.label = "arithmetic intensity (FLOP/byte)", .scale = TTA_AXIS_LOG10},
                     .y = {.label = "performance (FLOP/s)", .scale = TTA_AXIS_LOG10},
                     .series = series,
                     .n_series = 3};
    buf b = {0};
    tta_svg_xy(&b, &p);
    const char *svg = buf_str(&b);
    check_standalone(svg, "roofline");
    CHECK(count(svg, "class=\"point\"") == 5);
    CHECK(count(svg, "class=\"label\"") == 5);
    CHECK(count(svg, "class=\"line\"") == 2);
    CHECK(strstr(svg, "1 point not shown: not positive on a log axis") != NULL);
    CHECK(strstr(svg, ">10T</text>") != NULL && strstr(svg, ">100</text>") != NULL);
    buf_free(&b);
}

/* Stacked bars: memory by kind per model, segment values and totals. */
TEST(stacked_bars_memory) {
    const char *cats[] = {"resnet50", "bert-large", "ssd300", "gnmt"};
    const char *kinds[] = {"weights", "activations", "gradients", "optimizer state", "workspace"};
    double gib[] = {0.1, 5.2, 0.1, 0.2, 0.5, 1.3, 9.8, 1.3, 2.6, 0.8, 0.08, 3.1, 0.08, 0.16, 0.3, 0.6, 4.4, 0.6, 1.2, 0.4};
    tta_bar_plot p = {.title = "Training memory by kind (batch 64)",
                      .y = {.label = "memory (GiB)"},
                      .categories = cats,
                      .n_categories = 4,
                      .series_names = kinds,
                      .n_series = 5,
                      .values = gib,
                      .stacked = 1,
                      .label_values = 1,
                      .value_decimals = 1};
    buf b = {0};
    tta_svg_bars(&b, &p);
    const char *svg = buf_str(&b);
    check_standalone(svg, "stacked");
    CHECK(count(svg, "class=\"segment\"") == 20);
    CHECK(count(svg, "class=\"value total\"") == 4);
    CHECK(strstr(svg, ">15.8</text>") != NULL); /* bert-large total */
    buf_free(&b);
}

/* Fixed ranges clip and say so; an empty plot says "no data"; long category names rotate. */
TEST(edges_fixed_range_empty_rotated) {
    double x[] = {1, 2, 3}, y[] = {0.5, 1.5, 0.7};
    tta_series s = {.name = "s", .x = x, .y = y, .n = 3, .marks = TTA_MARK_POINTS};
    tta_xy_plot p = {.title = "fixed", .x = {.min = 0, .max = 4}, .y = {.min = 0, .max = 1}, .series = &s, .n_series = 1};
    buf b = {0};
    tta_svg_xy(&b, &p);
    check_standalone(buf_str(&b), "fixed");
    CHECK(count(buf_str(&b), "class=\"point\"") == 2);
    CHECK(strstr(buf_str(&b), "1 point outside the axis range") != NULL);
    buf_clear(&b);
    /* 200 points on a line are too close for dots: the line alone shows them */
    static double ex[200], ey[200];
    for (int i = 0; i < 200; i++) ex[i] = i + 1, ey[i] = 1 - 1.0 / (i + 2);
    tta_series dense = {.name = "dense", .x = ex, .y = ey, .n = 200, .marks = TTA_MARK_LINE_POINTS};
    tta_xy_plot dp = {.title = "dense", .series = &dense, .n_series = 1};
    tta_svg_xy(&b, &dp);
    CHECK(count(buf_str(&b), "class=\"point\"") == 0 && count(buf_str(&b), "class=\"line\"") == 1);
    buf_clear(&b);
    tta_xy_plot empty = {.title = "nothing"};
    tta_svg_xy(&b, &empty);
    check_standalone(buf_str(&b), "empty");
    CHECK(strstr(buf_str(&b), ">no data</text>") != NULL);
    buf_clear(&b);
    double v[] = {1, 2, 3};
    tta_strip_group g[] = {{"a very long entry name that cannot fit under its column", v, 3},
                           {"another very long entry name, longer than the space", v, 3},
                           {"x", v, 1}};
    tta_strip_plot sp = {.title = "rotated", .y = {.label = "y"}, .groups = g, .n_groups = 3, .width = 420};
    tta_svg_strip(&b, &sp);
    check_standalone(buf_str(&b), "rotated");
    CHECK(count(buf_str(&b), ")rotate(-35)") == 3);
    buf_free(&b);
}

/* Many categories: the default width grows so that each keeps 17 pixels, and names turn upright
 * (90°) so that neighbours cannot overlap; given 28 pixels each, they turn 35°; squeezed into a
 * narrow plot, 90° again. */
TEST(many_categories_widen_and_turn) {
    enum { N = 40 };
    static double v[N][3];
    static char names[N][48];
    tta_strip_group g[N];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "dgx1_n32_ngc19.05_pytorch_%02d resnet", i);
        for (int k = 0; k < 3; k++) v[i][k] = 20 + i + k;
        g[i] = (tta_strip_group){names[i], v[i], 3};
    }
    tta_strip_plot p = {.title = "many", .y = {.label = "TTA (min)"}, .groups = g, .n_groups = N};
    buf b = {0};
    tta_svg_strip(&b, &p);
    check_standalone(buf_str(&b), "many");
    CHECK(strstr(buf_str(&b), " width=\"830\" height=\"440\"") != NULL); /* 150 + 40 x 17 */
    /* upright names: turned once, by their group, each placed in the turned frame */
    CHECK(count(buf_str(&b), "<g text-anchor=\"end\" transform=\"rotate(-90)\">") == 1);
    CHECK(count(buf_str(&b), "<text x=\"-") == N);
    CHECK(count_points(buf_str(&b)) == 3 * N);
    buf_clear(&b);
    p.width = 1270; /* 150 + 40 x 28 */
    tta_svg_strip(&b, &p);
    check_standalone(buf_str(&b), "many_wide");
    CHECK(count(buf_str(&b), ")rotate(-35)") == N);
    buf_clear(&b);
    p.width = 600;
    tta_svg_strip(&b, &p);
    check_standalone(buf_str(&b), "many_narrow");
    /* upright names: turned once, by their group, each placed in the turned frame */
    CHECK(count(buf_str(&b), "<g text-anchor=\"end\" transform=\"rotate(-90)\">") == 1);
    CHECK(count(buf_str(&b), "<text x=\"-") == N);
    CHECK(count(buf_str(&b), "rotate(-90 ") == 1); /* the y axis label */
    buf_clear(&b);
    /* few short names stay horizontal at the default size */
    p.n_groups = 3;
    p.width = 0;
    static const char *short_names[] = {"resnet", "bert", "ssd"};
    for (int i = 0; i < 3; i++) g[i].name = short_names[i];
    tta_svg_strip(&b, &p);
    CHECK(strstr(buf_str(&b), " width=\"760\" ") != NULL);
    CHECK(count(buf_str(&b), "rotate(-35 ") == 0 && count(buf_str(&b), "rotate(-90 ") == 1);
    buf_free(&b);
}

int main(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tta_test_svg_%d", (int)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", tmpdir);
    if (system(cmd) != 0) return 1;
    have_xmllint = system("xmllint --version >/dev/null 2>&1") == 0;
    RUN(quality_curves_with_bands_and_target);
    RUN(strip_plot_dots_and_means);
    RUN(scaling_plot_log2);
    RUN(grouped_bars_labelled);
    RUN(roofline_log10);
    RUN(stacked_bars_memory);
    RUN(edges_fixed_range_empty_rotated);
    RUN(many_categories_widen_and_turn);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) return 1;
    int rc = test_summary();
    if (rc == 0 && !have_xmllint) test_skip("xmllint not installed (apt-get install libxml2-utils): SVGs not parsed as XML");
    return rc;
}
