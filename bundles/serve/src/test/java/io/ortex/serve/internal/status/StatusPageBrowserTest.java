package io.ortex.serve.internal.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.ortex.api.Names;
import io.ortex.testing.RealModels;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * The status page in a real browser: Debian's headless {@code chromium}, driven through {@code chromedriver} by
 * Selenium, loads the page of a server that serves all-MiniLM-L6-v2 on the CPU EP and a small model split between
 * the example EP's virtual NPU and the CPU EP, after real inference requests; the test checks what the browser
 * shows (devices, EP devices and their holders, model rows with their request counts, each graph's nodes in their
 * EP's colour, names from the model shown as text), takes screenshots into {@code target/status-page.png} (the top)
 * and {@code target/status-page-split.png} (the split model's graph), and
 * watches the page refresh its figures. Skipped, saying so, where chromium or chromedriver is missing, unless
 * {@value #REQUIRED} is {@code true}: then it fails.
 */
class StatusPageBrowserTest {
    /** The system property that makes a missing browser a failure rather than a skip. */
    static final String REQUIRED = "ortex.browser.required";
    private static final String CHROMIUM = System.getProperty("ortex.chromium", "/usr/bin/chromium");
    private static final String CHROMEDRIVER = System.getProperty("ortex.chromedriver", "/usr/bin/chromedriver");

    @TempDir
    Path models;
    @TempDir
    Path profile;

    /** Goes on when both programs are there; otherwise skips the test, or fails it when a browser is required. */
    static void requireBrowser(String chromium, String chromedriver, boolean required) {
        List<String> missing = new ArrayList<>();
        for (String exe : List.of(chromium, chromedriver)) {
            if (!Files.isExecutable(Path.of(exe))) {
                missing.add(exe);
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        String why = "the status page's browser test needs chromium and chromedriver (apt-get install chromium "
                + "chromium-driver); missing: " + String.join(", ", missing);
        if (required) {
            fail(why + " (" + REQUIRED + "=true)");
        }
        Assumptions.abort(why + "; skipped");
    }

    private ChromeDriver browser() {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--user-data-dir=" + profile.toAbsolutePath(), "--window-size=1400,1800");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60));
        return driver;
    }

    private static String minilmRequest(int seed) {
        StringBuilder ids = new StringBuilder();
        StringBuilder ones = new StringBuilder();
        StringBuilder zeros = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            String sep = i == 0 ? "" : ",";
            ids.append(sep).append(i == 0 ? 101 : i == 7 ? 102 : 1000 + (seed * 31 + i * 97) % 5000);
            ones.append(sep).append(1);
            zeros.append(sep).append(0);
        }
        return "{\"inputs\":[{\"name\":\"input_ids\",\"datatype\":\"INT64\",\"shape\":[1,8],\"data\":[" + ids
                + "]},{\"name\":\"attention_mask\",\"datatype\":\"INT64\",\"shape\":[1,8],\"data\":[" + ones
                + "]},{\"name\":\"token_type_ids\",\"datatype\":\"INT64\",\"shape\":[1,8],\"data\":[" + zeros + "]}]}";
    }

    @Test
    void aMissingBrowserSkipsTheTestUnlessOneIsRequired() {
        String absent = profile.resolve("no-such-chromium").toString();
        TestAbortedException skipped = assertThrows(TestAbortedException.class,
                () -> requireBrowser(absent, CHROMEDRIVER, false));
        assertTrue(skipped.getMessage().contains("missing: " + absent) && skipped.getMessage().contains("skipped"),
                skipped.getMessage());
        AssertionFailedError failed = assertThrows(AssertionFailedError.class,
                () -> requireBrowser(absent, CHROMEDRIVER, true));
        assertTrue(failed.getMessage().contains("missing: " + absent)
                && failed.getMessage().contains(REQUIRED + "=true"), failed.getMessage());
    }

    @Test
    void showsDevicesModelsAndGraphsColouredByEp() throws Exception {
        requireBrowser(CHROMIUM, CHROMEDRIVER, Boolean.getBoolean(REQUIRED));
        StatusServer.writeSplitModel(models);
        Path minilm = models.resolve("minilm").resolve("1");
        Files.createDirectories(minilm);
        Files.copy(RealModels.model("all-minilm-l6-v2"), minilm.resolve("model.onnx"));
        try (StatusServer server = new StatusServer(models)) {
            for (int i = 0; i < 5; i++) {
                assertEquals(200, server.post("/v2/models/split/infer", StatusServer.splitRequest(i)).statusCode());
            }
            for (int i = 0; i < 3; i++) {
                assertEquals(200, server.post("/v2/models/minilm/infer", minilmRequest(i)).statusCode());
            }
            for (String path : List.of("/status", "/status", "/status.json")) {
                long t0 = System.nanoTime();
                int bytes = server.get(path).body().length();
                System.out.printf("GET %s: %d characters in %.1f ms%n", path, bytes, (System.nanoTime() - t0) / 1e6);
            }
            ChromeDriver driver = browser();
            try {
                driver.manage().window().setSize(new Dimension(1400, 1800));
                driver.get(server.uri("/").toString());  // redirected to /status
                assertTrue(driver.getCurrentUrl().endsWith("/status"), driver.getCurrentUrl());
                assertEquals("Ortex status", driver.getTitle());
                check(driver);
                Path shot = Path.of("target", "status-page.png");
                Files.createDirectories(shot.getParent());
                Files.write(shot, driver.getScreenshotAs(OutputType.BYTES));
                assertTrue(Files.size(shot) > 10_000, "the screenshot " + shot + " holds a page");
                driver.executeScript("arguments[0].scrollIntoView()",
                        driver.findElement(By.cssSelector("section.model-graph[data-model-name=split]")));
                Files.write(shot.resolveSibling("status-page-split.png"), driver.getScreenshotAs(OutputType.BYTES));
                refreshes(driver, server);
            } finally {
                driver.quit();
            }
        }
    }

    private static void check(ChromeDriver driver) {
        List<WebElement> hardware = driver.findElements(By.cssSelector("table.hardware tr td:first-child"));
        assertTrue(hardware.stream().anyMatch(td -> td.getText().equals("CPU")), "a CPU among the hardware");
        Map<String, WebElement> eps = new HashMap<>();
        for (WebElement row : driver.findElements(By.cssSelector("table.eps tr[data-ep]"))) {
            eps.put(row.getAttribute("data-ep"), row);
        }
        assertTrue(eps.containsKey("CPUExecutionProvider") && eps.containsKey("ExampleExecutionProvider"),
                "EP rows: " + eps.keySet());
        for (WebElement row : eps.values()) {
            assertEquals("active", row.findElement(By.cssSelector("td.state")).getText());
        }
        String npuHolders = eps.get("ExampleExecutionProvider").findElement(By.cssSelector("td.holders")).getText();
        String cpuHolders = eps.get("CPUExecutionProvider").findElement(By.cssSelector("td.holders")).getText();
        List<WebElement> rows = driver.findElements(By.cssSelector("table.models tr.model-row"));
        assertEquals(2, rows.size());
        Map<String, String> sessions = new HashMap<>();
        for (WebElement row : rows) {
            List<WebElement> cells = row.findElements(By.tagName("td"));
            String name = cells.get(0).getText();
            sessions.put(name, cells.get(4).getText());
            assertEquals("READY", cells.get(2).getText(), name);
            long requests = Long.parseLong(row.findElement(By.cssSelector("[data-field=requests]")).getText());
            assertEquals(name.equals("split") ? 5 : 3, requests, name);
            assertEquals("0", row.findElement(By.cssSelector("[data-field=failures]")).getText(), name);
            assertTrue(Double.parseDouble(row.findElement(By.cssSelector("[data-field=mean]")).getText()) > 0, name);
        }
        assertTrue(npuHolders.contains(sessions.get("split")), npuHolders);
        assertTrue(cpuHolders.contains(sessions.get("minilm")) && cpuHolders.contains(sessions.get("split")),
                cpuHolders);
        Map<String, String> legend = new HashMap<>();
        for (WebElement swatch : driver.findElements(By.cssSelector(".legend span.swatch"))) {
            legend.put(swatch.getAttribute("data-ep"), swatch.getAttribute("data-colour"));
        }
        assertNotEquals(legend.get("CPUExecutionProvider"), legend.get("ExampleExecutionProvider"));
        // the split model: six nodes, three on the NPU, three on the CPU, each filled with its EP's legend colour
        WebElement split = driver.findElement(By.cssSelector("section.model-graph[data-model-name=split] svg"));
        List<WebElement> nodes = split.findElements(By.cssSelector("g.node"));
        assertEquals(6, nodes.size());
        Map<String, Integer> perEp = new HashMap<>();
        Set<String> fills = new HashSet<>();
        for (WebElement n : nodes) {
            String ep = n.getAttribute("data-ep");
            perEp.merge(ep, 1, Integer::sum);
            String fill = n.findElement(By.tagName("rect")).getAttribute("fill");
            assertEquals(legend.get(ep), fill, n.getAttribute("data-node"));
            fills.add(fill);
        }
        assertEquals(Map.of("ExampleExecutionProvider", 3, "CPUExecutionProvider", 3), perEp);
        assertEquals(2, fills.size());
        // the name with markup, quotes and a line break is one node's text, not markup
        List<WebElement> sigmoid = split.findElements(By.cssSelector("g.node[data-op=Sigmoid]"));
        assertEquals(1, sigmoid.size());
        assertEquals(Names.oneLine(StatusServer.HOSTILE), sigmoid.get(0).getAttribute("data-node"));
        JavascriptExecutor js = driver;
        assertEquals(0L, js.executeScript("return document.querySelectorAll('.ortex-status b').length"));
        assertEquals(1L, js.executeScript("return document.scripts.length"));
        // MiniLM: every node drawn, laid out top to bottom, the nodes the session runs in the CPU EP's colour
        WebElement big = driver.findElement(By.cssSelector("section.model-graph[data-model-name=minilm] svg"));
        int drawn = big.findElements(By.cssSelector("g.node")).size();
        assertEquals(Integer.parseInt(big.getAttribute("data-nodes")), drawn);
        assertTrue(drawn > 300, "MiniLM's nodes drawn: " + drawn);
        Number cpuNodes = (Number) js.executeScript("return arguments[0].querySelectorAll("
                + "'g.node[data-ep=CPUExecutionProvider] rect[fill=\"' + arguments[1] + '\"]').length", big,
                legend.get("CPUExecutionProvider"));
        assertTrue(cpuNodes.intValue() > 300, "MiniLM nodes in the CPU EP's colour: " + cpuNodes);
        Number height = (Number) js.executeScript("return arguments[0].getBoundingClientRect().height", big);
        Number width = (Number) js.executeScript("return arguments[0].getBoundingClientRect().width", big);
        assertTrue(height.doubleValue() > width.doubleValue(), "laid out top to bottom: " + width + "x" + height);
    }

    /** More requests: the page's script updates the counts in place, without reloading the page. */
    private static void refreshes(ChromeDriver driver, StatusServer server) throws Exception {
        JavascriptExecutor js = driver;
        js.executeScript("window.ortexMark = 42;");
        for (int i = 0; i < 4; i++) {
            assertEquals(200, server.post("/v2/models/split/infer", StatusServer.splitRequest(10 + i)).statusCode());
        }
        By count = By.cssSelector("tr.model-row[data-model-name=split] [data-field=requests]");
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!driver.findElement(count).getText().equals("9")) {
            assertTrue(System.nanoTime() < end, "the page did not show the new count within 30 s: "
                    + driver.findElement(count).getText());
            Thread.sleep(200);
        }
        assertEquals(42L, js.executeScript("return window.ortexMark"), "updated in place, not reloaded");
        assertFalse(driver.findElements(By.cssSelector("g.node")).isEmpty());
    }
}
