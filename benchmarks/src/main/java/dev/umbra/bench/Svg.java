package dev.umbra.bench;

import java.util.List;
import java.util.Locale;

/** Just enough SVG for the benchmark's plots: a line chart and a grouped bar chart, axes from zero, a legend. */
final class Svg {

    private static final String[] COLOURS = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"};
    private static final int WIDTH = 760;
    private static final int HEIGHT = 400;
    private static final int LEFT = 70;
    private static final int RIGHT = 190;
    private static final int TOP = 40;
    private static final int BOTTOM = 50;

    /** A line of (x, y) points. */
    record Series(String name, List<double[]> points) {
    }

    private Svg() {
    }

    static String lines(String title, String xLabel, String yLabel, List<Series> series) {
        double maxX = series.stream().flatMap(s -> s.points().stream()).mapToDouble(p -> p[0]).max().orElse(1);
        double maxY = series.stream().flatMap(s -> s.points().stream()).mapToDouble(p -> p[1]).max().orElse(1);
        double xTop = niceTop(maxX);
        double yTop = niceTop(maxY);
        StringBuilder svg = frame(title, xLabel, yLabel, yTop);
        for (int t = 0; t <= 5; t++) {
            double value = xTop * t / 5;
            double x = LEFT + plotWidth() * t / 5.0;
            svg.append(text(x, HEIGHT - BOTTOM + 16, "middle", number(value)));
        }
        for (int i = 0; i < series.size(); i++) {
            StringBuilder path = new StringBuilder();
            for (double[] point : series.get(i).points()) {
                path.append(path.length() == 0 ? "M" : " L").append(fmt(x(point[0], xTop))).append(',').append(fmt(y(point[1], yTop)));
            }
            svg.append("<path d=\"").append(path).append("\" fill=\"none\" stroke=\"").append(colour(i)).append("\" stroke-width=\"2\"/>\n");
            legend(svg, i, series.get(i).name());
        }
        return svg.append("</svg>\n").toString();
    }

    /** {@code values[series][category]}; a NaN leaves its bar out. */
    static String bars(String title, String yLabel, List<String> categories, List<String> seriesNames, double[][] values) {
        double max = 0;
        for (double[] row : values) {
            for (double v : row) {
                if (!Double.isNaN(v)) {
                    max = Math.max(max, v);
                }
            }
        }
        double yTop = niceTop(max);
        StringBuilder svg = frame(title, "", yLabel, yTop);
        double group = plotWidth() / (double) categories.size();
        double bar = group * 0.8 / seriesNames.size();
        for (int c = 0; c < categories.size(); c++) {
            double groupLeft = LEFT + group * c + group * 0.1;
            svg.append(text(LEFT + group * c + group / 2, HEIGHT - BOTTOM + 16, "middle", escape(categories.get(c))));
            for (int s = 0; s < seriesNames.size(); s++) {
                double v = values[s][c];
                if (Double.isNaN(v)) {
                    continue;
                }
                double top = y(v, yTop);
                svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
                        groupLeft + bar * s, top, bar * 0.92, HEIGHT - BOTTOM - top, colour(s)));
                svg.append(text(groupLeft + bar * s + bar * 0.46, top - 3, "middle", number(v)).replace("font-size=\"12\"", "font-size=\"9\""));
            }
        }
        for (int s = 0; s < seriesNames.size(); s++) {
            legend(svg, s, seriesNames.get(s));
        }
        return svg.append("</svg>\n").toString();
    }

    private static StringBuilder frame(String title, String xLabel, String yLabel, double yTop) {
        StringBuilder svg = new StringBuilder(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
                        + "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", WIDTH, HEIGHT, WIDTH, HEIGHT));
        svg.append(text(WIDTH / 2.0, 22, "middle", escape(title)).replace("font-size=\"12\"", "font-size=\"15\""));
        for (int t = 0; t <= 5; t++) {
            double value = yTop * t / 5;
            double y = y(value, yTop);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", LEFT, y,
                    WIDTH - RIGHT, y));
            svg.append(text(LEFT - 6, y + 4, "end", number(value)));
        }
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", LEFT, HEIGHT - BOTTOM,
                WIDTH - RIGHT, HEIGHT - BOTTOM));
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", LEFT, TOP, LEFT,
                HEIGHT - BOTTOM));
        svg.append(text(LEFT + plotWidth() / 2.0, HEIGHT - 12, "middle", escape(xLabel)));
        svg.append(String.format(Locale.ROOT, "<text x=\"16\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\">%s</text>\n",
                TOP + plotHeight() / 2.0, TOP + plotHeight() / 2.0, escape(yLabel)));
        return svg;
    }

    private static void legend(StringBuilder svg, int i, String name) {
        double y = TOP + 10 + i * 20;
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>\n", WIDTH - RIGHT + 14,
                y - 9, colour(i)));
        svg.append(text(WIDTH - RIGHT + 34, y, "start", escape(name)));
    }

    private static String text(double x, double y, String anchor, String content) {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"%s\">%s</text>\n", x, y, anchor,
                content);
    }

    /** 1, 2 or 5 times a power of ten, at least {@code max}. */
    static double niceTop(double max) {
        if (!(max > 0)) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(max)));
        for (double step : new double[] {1, 2, 5, 10}) {
            if (step * power >= max) {
                return step * power;
            }
        }
        return 10 * power;
    }

    private static double x(double value, double top) {
        return LEFT + plotWidth() * value / top;
    }

    private static double y(double value, double top) {
        return HEIGHT - BOTTOM - plotHeight() * value / top;
    }

    private static int plotWidth() {
        return WIDTH - LEFT - RIGHT;
    }

    private static int plotHeight() {
        return HEIGHT - TOP - BOTTOM;
    }

    private static String colour(int i) {
        return COLOURS[i % COLOURS.length];
    }

    private static String number(double v) {
        return v >= 100 || v == Math.rint(v) ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
